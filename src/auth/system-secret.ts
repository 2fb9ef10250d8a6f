import { HttpError } from '../http/http-error';

/** The system secret in `system.config`, when it has one. */
export function secretOf(config: ioBroker.Object | null | undefined): string | undefined {
    const secret = (config?.native as { secret?: unknown } | undefined)?.secret;
    return typeof secret === 'string' && secret ? secret : undefined;
}

/**
 * The system secret, read with the caller's rights every time (no cache shared between users). Takes
 * only the read it needs of the caller's data, so the token store can share `secretOf` without an import circle.
 */
export async function systemSecret(data: {
    getObject(id: string): Promise<ioBroker.Object | null | undefined>;
}): Promise<string> {
    const secret = secretOf(await data.getObject('system.config'));
    if (!secret) {
        throw new HttpError('NOT_FOUND', 'The system has no secret');
    }
    return secret;
}
