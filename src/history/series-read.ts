/*
 * Reading several ids from one history instance: `getHistory` per id, a few at a time, each failure
 * kept with its id (504 for a slow instance, 502 for its error) so the other ids still answer. Long
 * ranges are read in windows of a day, halved where a window holds more than a page, so that a CSV
 * export or a statistic never holds more than a window per id.
 */
import { HttpError } from '../http/http-error';
import { HISTORY_TIMEOUT_MS } from '../messaging/history';
import { sendToInstance, type Messenger } from '../messaging/messaging';

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

/** getHistory calls of one request at a time: the history instance serves other clients too. */
const PARALLEL = 4;
/** Values asked for per call of a windowed read; a window that returns this many is halved. */
export const PAGE = 10_000;
const WINDOW_MS = 24 * 3600 * 1000;
const MIN_WINDOW_MS = 1000;
/** How far back the reading before a range is looked for, in widening steps. */
const BEFORE_STEPS_MS = [1, 7, 31].map(days => days * 24 * 3600 * 1000);

function failureOf(err: unknown): Failure {
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
    ) {}

    /** One getHistory call; the values with a time, in the order the instance gave them. */
    async read(
        id: string,
        start: number | undefined,
        end: number,
        extra: Record<string, unknown> = {},
    ): Promise<Point[]> {
        const options = {
            aggregate: 'none',
            ...this.options,
            ...extra,
            end,
            instance: this.instance,
            user: this.ctx.user,
            ...(start === undefined ? {} : { start }),
        };
        const answer = (await sendToInstance(
            this.ctx,
            this.instance,
            'getHistory',
            { id, options },
            HISTORY_TIMEOUT_MS,
            { id },
        )) as { result?: unknown; error?: unknown } | undefined;
        if (answer?.error) {
            throw new HttpError('BAD_GATEWAY', String(answer.error), { context: { id } });
        }
        const result = Array.isArray(answer?.result) ? answer.result : [];
        return result.filter(
            (p): p is Point => typeof p === 'object' && p !== null && typeof (p as Point).ts === 'number',
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
            while (next < ids.length) {
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
        if (firstError !== undefined && [...results.values()].every(isFailure)) {
            throw firstError;
        }
        return new Map(ids.map(id => [id, results.get(id)!]));
    }

    /** The raw values of `id` in [from, to), oldest first, in as many calls as it takes to get them whole. */
    async rawRange(id: string, from: number, to: number): Promise<Point[]> {
        const points = await this.read(id, from, to - 1, {
            aggregate: 'none',
            count: PAGE,
            limit: PAGE,
            removeBorderValues: true,
            returnNewestEntries: false,
        });
        if (points.length >= PAGE && to - from > MIN_WINDOW_MS) {
            const middle = from + Math.floor((to - from) / 2);
            return [...(await this.rawRange(id, from, middle)), ...(await this.rawRange(id, middle, to))];
        }
        return points.filter(p => p.ts >= from && p.ts < to).sort((a, b) => a.ts - b.ts);
    }

    /**
     * The newest raw value in the 31 days before `at` (what a meter read before a range), if any: the
     * day before first, then the week, then the month. Asking the history instance for its newest
     * value before a time can answer the one after it instead (its border value), so whole ranges are read.
     */
    async before(id: string, at: number): Promise<Point | undefined> {
        let to = at;
        for (const back of BEFORE_STEPS_MS) {
            const found = (await this.rawRange(id, at - back, to)).at(-1);
            if (found) {
                return found;
            }
            to = at - back;
        }
        return undefined;
    }
}

/** The day-long windows of [start, end). */
export function windows(start: number, end: number): Array<[number, number]> {
    const list: Array<[number, number]> = [];
    for (let from = start; from < end; from += WINDOW_MS) {
        list.push([from, Math.min(end, from + WINDOW_MS)]);
    }
    return list;
}
