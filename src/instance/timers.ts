/**
 * The adapter's timers (`adapter.setTimeout` and the like), which js-controller clears when the
 * instance stops: every timer of the running adapter goes through these. While the instance stops,
 * js-controller refuses new timers (`undefined`), so code on the way down must not wait for one.
 */
export type Timers = Pick<ioBroker.Adapter, 'setTimeout' | 'clearTimeout' | 'setInterval' | 'clearInterval'>;

/**
 * Calls `fire` after `ms` and returns the cancel. While the instance stops, js-controller gives no
 * timer: then `fire` runs on the next microtask, so no wait with a deadline outlives the stop.
 */
export function deadline(timers: Timers, ms: number, fire: () => void): () => void {
    const timer = timers.setTimeout(fire, ms);
    if (timer === undefined) {
        queueMicrotask(fire);
    }
    return () => timers.clearTimeout(timer);
}
