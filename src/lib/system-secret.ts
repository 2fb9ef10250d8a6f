import { HttpError } from '../http-error';
import type { RequestContext } from '../request-context';

/** The system secret, read with the caller's rights every time (no cache shared between users). */
export async function systemSecret(ctx: RequestContext): Promise<string> {
    const config = await ctx.storage.getForeignObjectAsync('system.config', ctx.callOptions);
    const secret = (config?.native as { secret?: unknown } | undefined)?.secret;
    if (typeof secret !== 'string' || !secret) {
        throw new HttpError('NOT_FOUND', 'The system has no secret');
    }
    return secret;
}
