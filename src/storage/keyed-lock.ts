interface KeyState {
    /** Settles when the last exclusive holder (and all before it) ended. */
    exclusive?: Promise<unknown>;
    /** Shared holders since that exclusive one, still running. */
    shared: Set<Promise<unknown>>;
    pending: number;
}

/**
 * Per key inside this process: a conditional write checks the stored version and writes under it,
 * so no other write of the same id through this adapter comes in between. Exclusive holders run one
 * at a time, after every holder before them; shared holders (plain writes, which js-controller
 * orders itself) run side by side and wait only for an exclusive one ahead. A key nobody holds costs
 * nothing; the first holder starts at once, without waiting a turn.
 */
export class KeyedLock {
    private readonly keys = new Map<string, KeyState>();

    run<T>(key: string, work: () => Promise<T>, { shared = false }: { shared?: boolean } = {}): Promise<T> {
        let state = this.keys.get(key);
        if (!state) {
            state = { shared: new Set(), pending: 0 };
            this.keys.set(key, state);
        }
        const before = shared || !state.shared.size ? state.exclusive : Promise.all([state.exclusive, ...state.shared]);
        const result = before ? before.then(work, work) : work();
        // later holders wait for this one to end, however it ends
        const settled = result.then(
            () => undefined,
            () => undefined,
        );
        if (shared) {
            state.shared.add(settled);
        } else {
            state.exclusive = settled;
            state.shared = new Set();
        }
        state.pending++;
        const current = state;
        void settled.then(() => {
            current.shared.delete(settled);
            if (--current.pending === 0 && this.keys.get(key) === current) {
                this.keys.delete(key);
            }
        });
        return result;
    }

    /** Keys held or waited for now (for tests: nothing stays behind). */
    get size(): number {
        return this.keys.size;
    }
}
