import { setImmediate as nextTurn } from 'node:timers/promises';
import { deadline, type Timers } from '../../instance/timers';

/**
 * One barrier round trip for many callers. A round trip is sent after the turn of its first caller,
 * so after every caller's own write or read finished, and only once the one before it returned:
 * callers arriving meanwhile share the next one, which is still sent after they arrived. Under load
 * that is one round trip per round-trip time instead of one per request.
 */
export function sharedBarrier(send: () => Promise<unknown>, timers: Timers, timeoutMs = 10_000): () => Promise<void> {
    // a round trip whose reply never comes must not hold every later caller: it fails after a while
    const bounded = (): Promise<unknown> =>
        new Promise((resolve, reject) => {
            const cancel = deadline(timers, timeoutMs, () =>
                reject(new Error(`no barrier reply within ${timeoutMs} ms`)),
            );
            send().then(resolve, reject).finally(cancel);
        });
    let next: Promise<void> | null = null;
    let previous: Promise<unknown> = Promise.resolve();
    return () => {
        if (!next) {
            const before = previous;
            next = nextTurn()
                .then(() => before)
                .then(async () => {
                    // from here on, a new caller needs a round trip sent after it arrived
                    next = null;
                    await bounded();
                });
            previous = next.catch(() => undefined);
        }
        return next;
    };
}
