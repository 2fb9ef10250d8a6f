import type { Timers } from '../../src/instance/timers';

/** Node's own timers in the shape of the adapter's, for units tested without an adapter. */
export const nodeTimers = {
    setTimeout: (cb: (...args: unknown[]) => void, ms: number, ...args: unknown[]) => setTimeout(cb, ms, ...args),
    clearTimeout: (timer: unknown) => clearTimeout(timer as NodeJS.Timeout),
    setInterval: (cb: (...args: unknown[]) => void, ms: number, ...args: unknown[]) => setInterval(cb, ms, ...args),
    clearInterval: (timer: unknown) => clearInterval(timer as NodeJS.Timeout),
} as unknown as Timers;
