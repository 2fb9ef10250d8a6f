import { started } from './started';

/** Shared holders that started between two exclusive ones; the exclusive one after them waits until none runs. */
interface SharedRun {
    running: number;
    /** Set by the exclusive holder that waits for this run to end. */
    ended?: () => void;
}

interface KeyState {
    /** Settles when the last exclusive holder (and all before it) ended. */
    exclusive?: Promise<unknown>;
    /** The shared holders since that exclusive one. */
    shared: SharedRun;
    pending: number;
}

/**
 * Per key inside this process: a conditional write checks the stored version and writes under it,
 * so no other write of the same id through this adapter comes in between. Exclusive holders run one
 * at a time, after every holder before them; shared holders (plain writes, which js-controller
 * orders itself) run side by side and wait only for an exclusive one ahead. A key nobody holds costs
 * nothing; the first holder starts at once, without waiting a turn. Shared holders are only counted:
 * every plain state write passes here.
 */
export class KeyedLock {
    private readonly keys = new Map<string, KeyState>();

    run<T>(key: string, work: () => Promise<T>, { shared = false }: { shared?: boolean } = {}): Promise<T> {
        let state = this.keys.get(key);
        if (!state) {
            state = { exclusive: undefined, shared: { running: 0 }, pending: 0 };
            this.keys.set(key, state);
        }
        state.pending++;
        const current = state;
        const release = (): void => {
            if (--current.pending === 0 && this.keys.get(key) === current) {
                this.keys.delete(key);
            }
        };
        if (shared) {
            const run = state.shared;
            run.running++;
            // started: work that throws before its first await must still release the key
            const result = state.exclusive ? state.exclusive.then(work, work) : started(work);
            const end = (): void => {
                if (--run.running === 0) {
                    run.ended?.();
                }
                release();
            };
            result.then(end, end);
            return result;
        }
        const waits: Promise<unknown>[] = state.exclusive ? [state.exclusive] : [];
        const before = state.shared;
        if (before.running) {
            waits.push(new Promise<void>(resolve => (before.ended = resolve)));
        }
        // later shared holders wait for this one
        state.shared = { running: 0 };
        const result = waits.length ? Promise.all(waits).then(work, work) : started(work);
        // later holders wait for this one to end, however it ends
        const settled = result.then(
            () => undefined,
            () => undefined,
        );
        state.exclusive = settled;
        void settled.then(release);
        return result;
    }

    /** Keys held or waited for now (for tests: nothing stays behind). */
    get size(): number {
        return this.keys.size;
    }
}
