/*
 * Raw values of several ids read window by window, so that a CSV export or a statistic holds a
 * bounded number of values at a time however dense the history is: 25 ids with 50,000 values a day
 * each would be 1,250,000 values in a day, more than the value budget. A window starts short, grows
 * (up to a day) while it holds little, and is read again shorter when its values of all ids
 * together pass the budget. Each call still asks the history instance for everything in its window
 * (it counts a whole day file against `count`, so a smaller count would lose values unnoticed).
 */
import { HttpError } from '../http/http-error';
import { failureOf, type Failure, type Point, type SeriesReader } from './series-read';

/**
 * Values of all ids that one window may hold: a CSV export or a statistic holds one window at a time.
 * Held across the writes of their rows, they outlive young-generation collections: 200,000 let 25
 * dense ids raise RSS by 160 MB, 50,000 by 50 MB (bench/README.md), at twice the calls.
 */
export const HELD_VALUES = 50_000;
/** getHistory calls of one window at a time. */
const BATCH = 4;
const DAY_MS = 24 * 3600 * 1000;
/** The first window: short, so that a dense history is seen before much of it is held. */
const FIRST_SPAN_MS = 15 * 60_000;

export interface Span {
    from: number;
    to: number;
    /** The values of each id still read, oldest first. */
    byId: Map<string, Point[]>;
}

interface Read {
    byId: Map<string, Point[]>;
    held: number;
    /** The window held more than the budget: read again, shorter. */
    over: boolean;
}

export class SpanReader {
    /** Ids whose read failed in the first window (with `tolerate`), left out after. */
    readonly failures = new Map<string, Failure>();
    private firstError: unknown;

    constructor(
        private readonly reader: SeriesReader,
        private readonly budget = HELD_VALUES,
        /** Keep the first window's failures per id (they can still be told in the headers) instead of throwing. */
        private readonly tolerate = false,
    ) {}

    /**
     * The windows of [start, end) for `ids`, each holding at most about the budget of values.
     *
     * @yields {Span} each window's values, in time order
     */
    async *spans(ids: readonly string[], start: number, end: number): AsyncGenerator<Span> {
        let live = [...ids];
        let span = FIRST_SPAN_MS;
        let first = true;
        for (let from = start; from < end && live.length;) {
            // never across midnight (UTC): the history instance keeps a file per day, and reads each the window touches
            const to = Math.min(end, from + span, Math.floor(from / DAY_MS) * DAY_MS + DAY_MS);
            const read = await this.window(live, from, to, first);
            live = live.filter(id => !this.failures.has(id));
            if (first && !live.length) {
                throw this.firstError;
            }
            if (read.over) {
                if (to - from <= 1) {
                    throw new HttpError(
                        'INVALID_PARAMS',
                        `more than ${this.budget.toLocaleString('en')} values of the ids in one ms`,
                        { context: { limit: this.budget } },
                    );
                }
                span = Math.max(
                    1,
                    Math.min(Math.floor((to - from) / 2), Math.floor(((to - from) * this.budget) / (2 * read.held))),
                );
                continue;
            }
            yield { from, to, byId: read.byId };
            first = false;
            from = to;
            if (read.held < this.budget / 2) {
                span = Math.min(DAY_MS, span * 2);
            }
        }
    }

    /** The values of `ids` in [from, to), BATCH calls at a time, stopped once they pass the budget. */
    private async window(ids: string[], from: number, to: number, first: boolean): Promise<Read> {
        const byId = new Map<string, Point[]>();
        let held = 0;
        for (let i = 0; i < ids.length; i += BATCH) {
            const batch = ids.slice(i, i + BATCH);
            const answers = await Promise.allSettled(batch.map(id => this.reader.rawRange(id, from, to)));
            answers.forEach((answer, k) => {
                if (answer.status === 'fulfilled') {
                    byId.set(batch[k], answer.value);
                    held += answer.value.length;
                } else if (first && this.tolerate) {
                    this.firstError ??= answer.reason;
                    this.failures.set(batch[k], failureOf(answer.reason));
                } else {
                    // a failure after the first window cannot be told in the headers any more
                    throw answer.reason;
                }
            });
            if (held > this.budget) {
                // the values go now, before the window is read again shorter
                return {
                    byId: new Map(),
                    held: Math.ceil((held * ids.length) / Math.min(ids.length, i + BATCH)),
                    over: true,
                };
            }
        }
        return { byId, held, over: false };
    }
}
