import { HttpError } from '../http/http-error';
import type { RequestContext } from '../context/request-context';
import { fromAdapterError } from '../storage/adapter-errors';
import { deadline } from '../instance/timers';

export const MAX_WAIT_MS = 60_000;

/**
 * Writes a state and resolves with the first acknowledged state of that id. The listener is
 * registered before the write, and released in every outcome, without touching other waiters.
 */
export async function writeAndWaitForAck(
    ctx: RequestContext,
    id: string,
    state: ioBroker.SettableState,
    timeoutMs: number,
    write: () => Promise<unknown> = () => ctx.data.setState(id, state, { id }),
): Promise<ioBroker.State> {
    let resolve!: (state: ioBroker.State) => void;
    const acked = new Promise<ioBroker.State>(r => (resolve = r));
    let armed = false;
    const release = await ctx.events.feed.listen('state', id, (_id, value) => {
        const changed = value as ioBroker.State | null | undefined;
        if (armed && changed?.ack) {
            resolve(changed);
        }
    });
    // the id may have been subscribed already: an acknowledgement of an earlier write can still be
    // on its way, and must not pass for the answer to this one
    try {
        await ctx.events.stateBarrier();
    } catch (err) {
        await release();
        throw fromAdapterError(err, { id });
    }
    armed = true;
    let cancel: (() => void) | undefined;
    try {
        await write();
        const timedOut = new Promise<never>((_, reject) => {
            cancel = deadline(ctx.meta.timers, timeoutMs, () =>
                reject(new HttpError('NOT_IMPLEMENTED', 'timeout', { context: { id, val: state.val }, status: 501 })),
            );
        });
        return await Promise.race([acked, timedOut]);
    } finally {
        cancel?.();
        await release();
    }
}
