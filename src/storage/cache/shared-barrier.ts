import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * One barrier round trip for all callers of the same event-loop turn. It is sent after that turn,
 * so after every caller's own write or read finished: what each caller waits for is covered.
 */
export function sharedBarrier(send: () => Promise<unknown>): () => Promise<void> {
    let pending: Promise<void> | null = null;
    return () => {
        pending ??= nextTurn().then(async () => {
            pending = null;
            await send();
        });
        return pending;
    };
}
