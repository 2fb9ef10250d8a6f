/**
 * For caches fed by change notifications: answers whether the storage connection is up, and calls
 * `forget` while it is down and once more on the first check after it returned, since notifications
 * published meanwhile may have been missed.
 */
export function connectionCheck(connected: () => boolean, forget: () => void): () => boolean {
    let wasConnected = true;
    return () => {
        const now = connected();
        if (!now || !wasConnected) {
            forget();
        }
        wasConnected = now;
        return now;
    };
}
