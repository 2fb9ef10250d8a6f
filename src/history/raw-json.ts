/*
 * Raw values as JSON (no aggregate, `none` or `onchange`), read in the windows of spans.ts and counted
 * against the value budget here. Given a `count`, history 5.0.1 collects a day file's newest values
 * before it looks at the range, so any count passed to it could lose values in range unnoticed.
 * The values are held as JSON text per id (about a third of their size as objects) until every id is
 * read, so that an answer over the budget is a 422 and never a cut one; then they are written out.
 */
import { HttpError } from '../http/http-error';
import { paramsError } from '../http/parse-params';
import { MAX_POINTS, type SeriesQuery } from './series-query';
import { failureOf, isFailure, PARALLEL, type Failure, type Point, type SeriesReader } from './series-read';
import { HELD_VALUES, SpanReader } from './spans';

/**
 * Raw values of all ids one JSON answer may hold: held as text until the last is read, 500,000 raised
 * the adapter's RSS by 30 MB, 1,000,000 by 53 to 81 MB, over the 64 allowed (test/history-json-memory.test.ts).
 */
export const MAX_RAW_JSON_VALUES = 500_000;

/** Raw values per id of a JSON answer: MAX_POINTS, less with many ids (MAX_RAW_JSON_VALUES in all). */
export const rawShare = (q: SeriesQuery): number =>
    Math.max(1, Math.min(MAX_POINTS, Math.floor(MAX_RAW_JSON_VALUES / q.ids.length)));

/** Whether `q` asks for raw values as JSON. */
export const isRawJson = (q: SeriesQuery): boolean =>
    q.format === 'json' &&
    !q.align &&
    !q.period &&
    (q.options.aggregate === undefined || q.options.aggregate === 'none' || q.options.aggregate === 'onchange');

interface Part {
    text: string;
    count: number;
    first: Point;
    last: Point;
}

/** The values of one id as JSON text, a part per window, oldest first. */
class HeldValues {
    private parts: Part[] = [];
    total = 0;
    /** A value written before (`head`) and after (`tail`) the others: the border values of onchange. */
    head?: Point;
    tail?: Point;

    add(points: Point[]): void {
        if (points.length) {
            // one text per window, no string per value: less garbage to collect while values are read
            const text = JSON.stringify(points).slice(1, -1);
            this.parts.push({ text, count: points.length, first: points[0], last: points.at(-1)! });
            this.total += points.length;
        }
    }

    /** Keeps the newest `n` values: whole parts go at once, the oldest part left is cut when it is written. */
    keepNewest(n: number): void {
        while (this.parts.length && this.total - this.parts[0].count >= n) {
            this.total -= this.parts.shift()!.count;
        }
        const over = this.total - n;
        if (over > 0) {
            const kept = (JSON.parse(`[${this.parts[0].text}]`) as Point[]).slice(over);
            this.parts[0] = { text: JSON.stringify(kept).slice(1, -1), count: kept.length, ...ends(kept) };
            this.total -= over;
        }
    }

    get first(): Point | undefined {
        return this.parts[0]?.first;
    }

    get last(): Point | undefined {
        return this.parts.at(-1)?.last;
    }

    /**
     * The values as a JSON list after `prefix`, a part at a time; each part is let go once written.
     *
     * @yields {string} JSON text
     */
    *chunks(prefix: string): Generator<string> {
        const texts = [
            ...(this.head ? [JSON.stringify(this.head)] : []),
            ...this.parts.map(part => part.text),
            ...(this.tail ? [JSON.stringify(this.tail)] : []),
        ];
        this.parts = [];
        yield `${prefix}[`;
        for (let i = 0; i < texts.length; i++) {
            yield i ? `,${texts[i]}` : texts[i];
            texts[i] = '';
        }
        yield ']';
    }
}

const ends = (points: Point[]): { first: Point; last: Point } => ({ first: points[0], last: points.at(-1)! });

function overBudget(id: string, q: SeriesQuery): HttpError {
    return new HttpError(
        'INVALID_PARAMS',
        `${id} has more than ${rawShare(q).toLocaleString('en')} values in the range (the bound per id with ${q.ids.length} ids): narrow it, use an aggregate, or ask for CSV`,
        { context: { id, limit: rawShare(q) } },
    );
}

/** History takes limit for a count not given (0 is not given); 422 for more than an id's share. */
function wantedOf(q: SeriesQuery): number {
    const wanted = ((q.options.count as number | undefined) || (q.options.limit as number | undefined)) ?? 0;
    if (wanted > rawShare(q)) {
        const param = q.options.count ? 'count' : 'limit';
        throw paramsError(
            [
                {
                    param,
                    problem: `at most ${rawShare(q).toLocaleString('en')} raw values per id with ${q.ids.length} ids in JSON (asked: ${wanted.toLocaleString('en')})`,
                },
            ],
            ['ids'],
        );
    }
    return wanted;
}

/** The values of one id in [start, end], counted as they come: 422 as soon as it passes its share. */
async function readOne(reader: SeriesReader, q: SeriesQuery, id: string, stop: () => boolean): Promise<HeldValues> {
    const wanted = wantedOf(q);
    const newest = wanted > 0 && q.options.returnNewestEntries === true;
    const values = new HeldValues();
    // PARALLEL ids at a time, each with a quarter of its share of a window (3,125 values): the held text
    // lives beside the windows, and a share of 12,500 raised RSS by 86 MB for 1,000,000 values, 3,125 by 53
    for await (const span of new SpanReader(reader, HELD_VALUES / PARALLEL / 4).spans([id], q.start, q.end + 1)) {
        const points = span.byId.get(id) ?? [];
        if (stop()) {
            break;
        } else if (!wanted) {
            if (values.total + points.length > rawShare(q)) {
                throw overBudget(id, q);
            }
            values.add(points);
        } else if (newest) {
            values.add(points);
            values.keepNewest(wanted);
        } else {
            values.add(points.slice(0, wanted - values.total));
            if (values.total >= wanted) {
                break;
            }
        }
    }
    return values;
}

/** Every id read, PARALLEL at a time; one id over the budget stops all reading and answers 422. */
async function readAll(reader: SeriesReader, q: SeriesQuery): Promise<Map<string, HeldValues | Failure>> {
    let over: HttpError | undefined;
    const byId = await reader.each(q.ids, async id => {
        if (over) {
            throw over;
        }
        try {
            return await readOne(reader, q, id, () => over !== undefined);
        } catch (err) {
            if (err instanceof HttpError && err.status === 422) {
                over ??= err;
            }
            throw err;
        }
    });
    if (over) {
        throw over;
    }
    return byId;
}

/**
 * What history's onchange adds to values that do not reach start or end: a value at start (the one
 * before it, else null) and at end (the one after it, else null), so that a step line is drawn to the
 * edges. Looked for a day before and after, in short windows first.
 */
async function addBorders(reader: SeriesReader, q: SeriesQuery, id: string, values: HeldValues): Promise<void> {
    const { first, last } = values;
    if (!first || !last) {
        return;
    }
    const orNull = (found: Point | undefined, own: Point): unknown =>
        found && found.val !== null ? found.val : q.options.ignoreNull === true ? own.val : null;
    if (first.ts > q.start) {
        values.head = { ts: q.start, val: orNull(await reader.before(id, q.start, 1), first) };
    }
    if (last.ts < q.end) {
        values.tail = { ts: q.end, val: orNull(await reader.after(id, q.end, 1), last) };
    }
}

/**
 * The raw JSON answer `{"<id>": [{ts, val, ...}], ...}`, a failed id `{error, status}` in place of its
 * values; read whole before its first byte (a 422 is still possible until then), written in parts.
 */
export async function rawJsonAnswer(reader: SeriesReader, q: SeriesQuery): Promise<AsyncGenerator<string>> {
    wantedOf(q);
    const byId = await readAll(reader, q);
    if (q.options.aggregate === 'onchange' && q.options.removeBorderValues !== true) {
        await reader.each(q.ids, async id => {
            const values = byId.get(id)!;
            if (!isFailure(values)) {
                await addBorders(reader, q, id, values).catch(err => byId.set(id, failureOf(err)));
            }
        });
    }
    return jsonChunks(byId);
}

/**
 * @yields {string} JSON text
 */
async function* jsonChunks(byId: Map<string, HeldValues | Failure>): AsyncGenerator<string> {
    let comma = '';
    yield '{';
    for (const [id, values] of byId) {
        const key = `${comma}${JSON.stringify(id)}:`;
        comma = ',';
        if (isFailure(values)) {
            yield key + JSON.stringify(values);
        } else {
            yield* values.chunks(key);
        }
    }
    yield '}';
}
