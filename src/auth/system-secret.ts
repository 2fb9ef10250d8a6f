import { HttpError } from '../http/http-error';
import type { StoragePort } from '../storage/port';

/** The system secret in `system.config`, when it has one. */
export function secretOf(config: ioBroker.Object | null | undefined): string | undefined {
    const secret = (config?.native as { secret?: unknown } | undefined)?.secret;
    return typeof secret === 'string' && secret ? secret : undefined;
}

/**
 * The system secret, read with the caller's rights every time (no cache shared between users). Takes
 * what it needs of a request context, so the token store can share `secretOf` without an import circle.
 */
export async function systemSecret(ctx: { storage: StoragePort; callOptions: { user: string } }): Promise<string> {
    const secret = secretOf(await ctx.storage.getForeignObjectAsync('system.config', ctx.callOptions));
    if (!secret) {
        throw new HttpError('NOT_FOUND', 'The system has no secret');
    }
    return secret;
}
