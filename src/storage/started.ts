/** `work()` as a promise: one that throws before its first await rejects instead of throwing at the caller. */
export function started<T>(work: () => Promise<T>): Promise<T> {
    try {
        return Promise.resolve(work());
    } catch (err) {
        return Promise.reject(err);
    }
}
