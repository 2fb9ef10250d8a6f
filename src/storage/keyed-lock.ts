/**
 * One at a time per key inside this process: a conditional write checks the stored version and writes
 * under it, so no other write of the same id through this adapter comes in between. A key nobody
 * holds costs a map entry; the first holder starts at once, without waiting a turn.
 */
export class KeyedLock {
    private readonly tails = new Map<string, Promise<unknown>>();

    run<T>(key: string, work: () => Promise<T>): Promise<T> {
        const before = this.tails.get(key);
        const result = before ? before.then(work, work) : work();
        // the next holder waits for this one to end, however it ends
        const tail = result.then(
            () => undefined,
            () => undefined,
        );
        this.tails.set(key, tail);
        void tail.then(() => {
            if (this.tails.get(key) === tail) {
                this.tails.delete(key);
            }
        });
        return result;
    }

    /** Keys held or waited for now (for tests: nothing stays behind). */
    get size(): number {
        return this.tails.size;
    }
}
