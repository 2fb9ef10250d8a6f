/** `work()` as a promise: one that throws before its first await rejects instead of throwing at the caller. */
export function started<T>(work: () => Promise<T>): Promise<T> {
    try {
        return Promise.resolve(work());
    } catch (err) {
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- what work() threw, passed on unchanged
        return Promise.reject(err);
    }
}
