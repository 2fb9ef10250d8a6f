import { HttpError } from '../http-error';
import type { RequestContext } from '../request-context';
import { assertInstanceAlive, instanceName, sendToInstance } from './messaging';

export const HISTORY_TIMEOUT_MS = 20_000;

/** The history instance: explicit, else the configured `dataSource`, else the system default. */
export async function historyInstance(ctx: RequestContext, explicit?: string): Promise<string> {
    let name = explicit || ctx.app.config.dataSource;
    if (!name) {
        const config = await ctx.adapter.getForeignObjectAsync('system.config');
        name = (config?.common as { defaultHistory?: string } | undefined)?.defaultHistory ?? '';
    }
    if (!name) {
        throw new HttpError('INVALID_PARAMS', 'No dataSource defined!');
    }
    const instance = instanceName(name);
    await assertInstanceAlive(ctx, instance);
    return instance;
}

export interface HistoryAnswer {
    result?: unknown[];
    step?: number;
    sessionId?: unknown;
    error?: string;
}

/** Asks the history instance for values of one state; the caller must be allowed to read that state. */
export async function readHistory(ctx: RequestContext, id: string, options: Record<string, unknown>): Promise<HistoryAnswer> {
    // per-state ACL, which 4.0.2 skipped for history: js-controller refuses the read when not allowed
    await ctx.adapter.getForeignStateAsync(id, ctx.callOptions);
    const instance = await historyInstance(ctx, typeof options.instance === 'string' ? options.instance : undefined);
    const now = Date.now();
    const query = {
        aggregate: 'none',
        end: now + 5_000_000,
        ...(options.count === undefined && options.start === undefined ? { start: now - 7 * 24 * 3600 * 1000 } : {}),
        ...options,
        instance,
        user: ctx.user,
    };
    return ((await sendToInstance(ctx, instance, 'getHistory', { id, options: query }, HISTORY_TIMEOUT_MS)) ?? {}) as HistoryAnswer;
}
