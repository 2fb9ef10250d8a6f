/*
 * Reading several ids from one history instance: `getHistory` per id, a few at a time, each failure
 * kept with its id (504 for a slow instance, 502 for its error) so the other ids still answer. Long
 * ranges are read in windows of a day, so that a CSV export or a statistic never holds more than a
 * day per id. The calls of all requests share a few slots (the history instance serves vis and admin
 * too), and a request whose client went away makes no more calls.
 */
import { HttpError } from '../http/http-error';
import { HISTORY_TIMEOUT_MS } from '../messaging/history';
import { sendToInstance, type Messenger } from '../messaging/messaging';
import { UserLimits } from '../events/user-limits';

export interface Point {
    ts: number;
    val: unknown;
    [field: string]: unknown;
}

/** An id whose read failed while others succeeded: what the single-id route would have answered. */
export interface Failure {
    error: string;
    status: number;
}

export const isFailure = (value: unknown): value is Failure =>
    typeof value === 'object' && value !== null && !Array.isArray(value) && 'error' in value && 'status' in value;

/** getHistory calls of one request at a time. */
export const PARALLEL = 4;
/** getHistory calls of all requests at a time. */
const SHARED_SLOTS = 4;
/** History requests of one user at a time (429 beyond). */
export const REQUESTS_PER_USER = 2;
/**
 * Raw values one call of a day may bring. The history adapter reads a day file newest first and
 * stops at the count it was given, so a smaller count would lose a day's first values unnoticed.
 */
export const DAY_LIMIT = 500_000;
const WINDOW_MS = 24 * 3600 * 1000;
/** The first window looked at before a range. */
const FIRST_BEFORE_MS = 15 * 60_000;

let slotsInUse = 0;
const waitingForSlot: Array<() => void> = [];

/** Runs `call` in one of the shared slots. */
async function inSlot<T>(call: () => Promise<T>): Promise<T> {
    if (slotsInUse >= SHARED_SLOTS) {
        await new Promise<void>(resolve => waitingForSlot.push(resolve));
    } else {
        slotsInUse++;
    }
    try {
        return await call();
    } finally {
        // the slot passes to the next waiter, or is free again
        const next = waitingForSlot.shift();
        if (next) {
            next();
        } else {
            slotsInUse--;
        }
    }
}

/** Running history requests per user: the counter the event limits use, with no total. */
const historyRequests = new UserLimits(
    { perUser: REQUESTS_PER_USER, total: Infinity },
    { message: `At most ${REQUESTS_PER_USER} history requests of one user at a time` },
);

/** Counts a history request of `user` until the returned release; 429 while the user has REQUESTS_PER_USER running. */
export function claimRequest(user: string): () => void {
    historyRequests.assertRoom(user);
    historyRequests.opened(user);
    let released = false;
    return () => {
        if (!released) {
            released = true;
            historyRequests.closed(user);
        }
    };
}

export function failureOf(err: unknown): Failure {
    if (err instanceof HttpError) {
        return { error: err.message, status: err.status };
    }
    return { error: 'Internal error', status: 500 };
}

export class SeriesReader {
    constructor(
        private readonly ctx: Messenger & { user: string },
        private readonly instance: string,
        /** getHistory options of the request (aggregate, step, ack, ...). */
        private readonly options: Record<string, unknown>,
        /** Aborted when the client went away: no more calls are made. */
        private readonly gone: AbortSignal = new AbortController().signal,
    ) {}

    /** One getHistory call; the values with a time, in the order the instance gave them. */
    async read(
        id: string,
        start: number | undefined,
        end: number,
        extra: Record<string, unknown> = {},
    ): Promise<Point[]> {
        if (this.gone.aborted) {
            throw new HttpError('BAD_REQUEST', 'The client went away');
        }
        const options = {
            aggregate: 'none',
            ...this.options,
            ...extra,
            end,
            instance: this.instance,
            user: this.ctx.user,
            ...(start === undefined ? {} : { start }),
        };
        const answer = (await inSlot(() =>
            sendToInstance(this.ctx, this.instance, 'getHistory', { id, options }, HISTORY_TIMEOUT_MS, { id }),
        )) as { result?: unknown; error?: unknown } | undefined;
        if (answer?.error) {
            throw new HttpError('BAD_GATEWAY', String(answer.error), { context: { id } });
        }
        const result = Array.isArray(answer?.result) ? answer.result : [];
        return result.filter(
            (p): p is Point =>
                typeof p === 'object' &&
                p !== null &&
                typeof (p as Point).ts === 'number' &&
                Number.isFinite((p as Point).ts),
        );
    }

    /**
     * `task` for every id, PARALLEL at a time; a failed id answers its Failure. When every id failed,
     * the first failure is thrown: the request answers as the single-id route does.
     */
    async each<T>(ids: string[], task: (id: string) => Promise<T>): Promise<Map<string, T | Failure>> {
        const results = new Map<string, T | Failure>();
        let next = 0;
        let firstError: Error | undefined;
        const worker = async (): Promise<void> => {
            while (next < ids.length && !this.gone.aborted) {
                const id = ids[next++];
                try {
                    results.set(id, await task(id));
                } catch (err) {
                    firstError ??= err instanceof Error ? err : new Error(String(err));
                    results.set(id, failureOf(err));
                }
            }
        };
        await Promise.all(Array.from({ length: Math.min(PARALLEL, ids.length) }, worker));
        if (this.gone.aborted) {
            throw new HttpError('BAD_REQUEST', 'The client went away');
        }
        if (firstError !== undefined && [...results.values()].every(isFailure)) {
            throw firstError;
        }
        return new Map(ids.map(id => [id, results.get(id)!]));
    }

    /** The raw values of `id` in [from, to) (at most a day), oldest first; 422 for a day with more than DAY_LIMIT. */
    async rawRange(id: string, from: number, to: number): Promise<Point[]> {
        const points = await this.read(id, from, to - 1, {
            aggregate: 'none',
            count: DAY_LIMIT,
            limit: DAY_LIMIT,
            removeBorderValues: true,
            returnNewestEntries: false,
        });
        if (points.length >= DAY_LIMIT) {
            throw new HttpError(
                'INVALID_PARAMS',
                `${id} has more than ${DAY_LIMIT.toLocaleString('en')} values in one day`,
                { context: { id } },
            );
        }
        return points.filter(p => p.ts >= from && p.ts < to).sort((a, b) => a.ts - b.ts);
    }

    /**
     * The newest raw value in the `days` before `at` (what a meter read before a range), looked for
     * in windows going back from `at`: a quarter hour first, doubled up to a day while they are
     * empty, so that a dense history gives a few of its values, not a whole day of them. (Asking the
     * history instance for its newest value before a time can answer its border value after it instead.)
     */
    async before(id: string, at: number, days: number): Promise<Point | undefined> {
        const stop = at - days * WINDOW_MS;
        let span = FIRST_BEFORE_MS;
        for (let to = at; to > stop; span = Math.min(WINDOW_MS, span * 2)) {
            const from = Math.max(stop, to - span);
            const found = (await this.rawRange(id, from, to)).at(-1);
            if (found) {
                return found;
            }
            to = from;
        }
        return undefined;
    }

    /** The oldest raw value in the `days` after `at` (exclusive), found as `before` finds its value, going forward. */
    async after(id: string, at: number, days: number): Promise<Point | undefined> {
        const stop = at + 1 + days * WINDOW_MS;
        let span = FIRST_BEFORE_MS;
        for (let from = at + 1; from < stop; span = Math.min(WINDOW_MS, span * 2)) {
            const to = Math.min(stop, from + span);
            const found = (await this.rawRange(id, from, to))[0];
            if (found) {
                return found;
            }
            from = to;
        }
        return undefined;
    }
}

/** The day-long windows of [start, end); one window at least. */
export function windows(start: number, end: number): Array<[number, number]> {
    const list: Array<[number, number]> = [];
    for (let from = start; from < end; from += WINDOW_MS) {
        list.push([from, Math.min(end, from + WINDOW_MS)]);
    }
    return list.length ? list : [[start, end]];
}
