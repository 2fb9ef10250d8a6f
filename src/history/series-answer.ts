/*
 * The answers of `/v1/history`: per id its values (JSON), one time axis with a column per id
 * (aligned), calendar statistics, and CSV in the wide form (a row per time, a column per id) or the
 * long form (a row per value). Raw CSV and statistics are read in windows that hold a bounded number
 * of values of all ids (spans.ts), and CSV is written in chunks of rows, so an export streams with flat
 * memory however long or dense its history is.
 */
import { HttpError } from '../http/http-error';
import { csvRecord } from './csv';
import { BEFORE_DAYS, type SeriesQuery } from './series-query';
import { isFailure, PARALLEL, type Failure, type Point, type SeriesReader } from './series-read';
import { HELD_VALUES, SpanReader, type Span } from './spans';
import { BucketStatistics, type BucketRow } from './statistics';
import { isoIn } from './times';

type Column = unknown[] | Failure;

/**
 * One getHistory call per id: `{ "<id>": [{ts, val, ...}] }`, a failed id `{error, status}` in place of
 * its values. For aggregates; raw values (onchange too) are read in windows (spans.ts, raw-json.ts).
 */
async function rawValues(reader: SeriesReader, q: SeriesQuery): Promise<Map<string, Point[] | Failure>> {
    // raw values only: for an aggregate, count is its number of intervals (the instance's default: 500)
    const raw =
        q.options.aggregate === undefined || q.options.aggregate === 'none' || q.options.aggregate === 'onchange';
    const capped = raw && q.options.count === undefined && q.options.limit === undefined;
    return reader.each(q.ids, async id => {
        // the history instance cuts at its own limit (2,000) without saying so: ask for the bound and say when it is reached
        const points = await reader.read(
            id,
            q.start,
            q.end,
            capped ? { count: q.valuesPerId, limit: q.valuesPerId } : {},
        );
        if (capped && points.length >= q.valuesPerId) {
            throw new HttpError(
                'INVALID_PARAMS',
                `${id} has more than ${q.valuesPerId.toLocaleString('en')} values in the range (the bound per id with ${q.ids.length} ids): narrow it, use an aggregate, or ask for CSV`,
                {
                    context: { id, limit: q.valuesPerId },
                },
            );
        }
        return points;
    });
}

/** One axis of `step`s from start, each id's aggregate in its step's column, null where it has none. */
async function alignedSteps(
    reader: SeriesReader,
    q: SeriesQuery,
): Promise<{ ts: number[]; columns: Map<string, Column> }> {
    const step = q.options.step as number;
    const steps = Math.max(1, Math.ceil((q.end - q.start) / step));
    const ts = Array.from({ length: steps }, (_, i) => q.start + i * step);
    const columns = await reader.each(q.ids, async id => {
        const column: unknown[] = new Array(steps).fill(null);
        for (const point of await reader.read(id, q.start, q.end, { count: steps })) {
            const index = Math.floor((point.ts - q.start) / step);
            if (index >= 0 && index < steps && point.ts < q.end) {
                column[index] = point.val;
            }
        }
        return column;
    });
    return { ts, columns };
}

/** Statistics per calendar bucket and id, from the raw values read a day at a time. */
async function statistics(reader: SeriesReader, q: SeriesQuery): Promise<Map<string, BucketRow[] | Failure>> {
    return reader.each(q.ids, async id => {
        const buckets = new BucketStatistics(q.start, q.end, q.period!, q.zone, q.stats);
        if (q.stats.includes('change')) {
            const before = await reader.before(id, q.start, BEFORE_DAYS);
            if (before) {
                buckets.add(before.ts, before.val);
            }
        }
        // PARALLEL ids at a time, each holding its share of the budget
        for await (const span of new SpanReader(reader, HELD_VALUES / PARALLEL).spans([id], q.start, q.end)) {
            for (const point of span.byId.get(id) ?? []) {
                buckets.add(point.ts, point.val);
            }
        }
        return buckets.rows();
    });
}

/** Column names of statistics: the id alone for one statistic, `<id>:<stat>` for several. */
const statColumn = (q: SeriesQuery, id: string, stat: string): string => (q.stats.length === 1 ? id : `${id}:${stat}`);

function alignedStatistics(
    q: SeriesQuery,
    byId: Map<string, BucketRow[] | Failure>,
): { ts: number[]; columns: Map<string, Column> } {
    const rows = [...byId.values()].find((r): r is BucketRow[] => !isFailure(r)) ?? [];
    const columns = new Map<string, Column>();
    for (const [id, result] of byId) {
        for (const stat of q.stats) {
            columns.set(statColumn(q, id, stat), isFailure(result) ? result : result.map(row => row[stat] ?? null));
        }
    }
    return { ts: rows.map(row => row.ts), columns };
}

export async function jsonAnswer(reader: SeriesReader, q: SeriesQuery): Promise<Record<string, unknown>> {
    if (q.period) {
        const byId = await statistics(reader, q);
        if (!q.align) {
            return Object.fromEntries(byId);
        }
        const { ts, columns } = alignedStatistics(q, byId);
        return { ts, ...Object.fromEntries(columns) };
    }
    if (q.align) {
        const { ts, columns } = await alignedSteps(reader, q);
        return { ts, ...Object.fromEntries(columns) };
    }
    return Object.fromEntries(await rawValues(reader, q));
}

/** A CSV answer: its first part is ready (so failures of the first read can still go into the headers), the rest follows. */
export interface CsvAnswer {
    /** Ids that failed while others answered, for the `X-History-Errors` header. */
    failures: Record<string, Failure>;
    chunks: AsyncGenerator<string>;
}

/** The fields of a value the long form adds when the request asked for them. */
const extraFields = (q: SeriesQuery): string[] => ['ack', 'q', 'from'].filter(field => q.options[field] === true);

/**
 * Rows of raw values in time order across ids, ROWS_PER_CHUNK rows a chunk: `wide` a row per time with
 * a cell per id (two values of one id at the same time make two rows), `long` a row per value.
 *
 * @yields {string} CSV text of up to ROWS_PER_CHUNK rows
 */
export function* rawRowChunks(
    q: SeriesQuery,
    byId: Map<string, Point[]>,
    layout: SeriesQuery['layout'],
): Generator<string> {
    const ids = q.ids.filter(id => byId.has(id));
    const heads = ids.map(() => 0);
    const column = new Map(q.ids.map((id, i) => [id, i]));
    const extra = extraFields(q);
    let text = '';
    for (let rows = 1; ; rows++) {
        let ts = Infinity;
        ids.forEach((id, i) => (ts = Math.min(ts, byId.get(id)![heads[i]]?.ts ?? Infinity)));
        if (ts === Infinity) {
            break;
        }
        const iso = isoIn(ts, q.zone);
        const cells: unknown[] = new Array(q.ids.length);
        ids.forEach((id, i) => {
            const point = byId.get(id)![heads[i]];
            if (point?.ts !== ts) {
                return;
            }
            heads[i]++;
            if (layout === 'long') {
                text += csvRecord([id, ts, iso, point.val, ...extra.map(field => point[field])]);
            } else {
                cells[column.get(id)!] = point.val;
            }
        });
        if (layout === 'wide') {
            text += csvRecord([ts, iso, ...cells]);
        }
        if (rows % ROWS_PER_CHUNK === 0) {
            yield text;
            text = '';
        }
    }
    if (text) {
        yield text;
    }
}

/** All rows of `rawRowChunks` as one text. */
export const rawRows = (q: SeriesQuery, byId: Map<string, Point[]>, layout: SeriesQuery['layout']): string =>
    [...rawRowChunks(q, byId, layout)].join('');

function header(q: SeriesQuery, columns: string[]): string {
    if (q.layout === 'long') {
        return csvRecord(q.period ? ['id', 'ts', 'iso', ...q.stats] : ['id', 'ts', 'iso', 'val', ...extraFields(q)]);
    }
    return csvRecord(['ts', 'iso', ...columns]);
}

const ROWS_PER_CHUNK = 1000;

/** The ids whose read succeeded, with their values: failed ids keep empty cells. */
const succeeded = (byId: Map<string, Point[] | Failure>): Map<string, Point[]> =>
    new Map([...byId].filter((entry): entry is [string, Point[]] => !isFailure(entry[1])));

/**
 * Raw CSV window by window: the first window is read already (its failures are in the headers).
 *
 * @yields {string} CSV text
 */
async function* rawCsv(
    q: SeriesQuery,
    first: Span,
    rest: AsyncGenerator<Span>,
    borders?: Borders,
): AsyncGenerator<string> {
    yield header(q, q.ids);
    borders?.seen(first.byId);
    yield* rawRowChunks(q, first.byId, q.layout);
    // a failure now cannot be told in the headers any more: it breaks the answer (reader.abort)
    for await (const span of rest) {
        borders?.seen(span.byId);
        yield* rawRowChunks(q, span.byId, q.layout);
    }
    if (borders) {
        yield* rawRowChunks(q, await borders.tails(), q.layout);
    }
}

/**
 * An aggregate over the range: one answer per id, bounded by its count, written in chunks.
 *
 * @yields {string} CSV text
 */
async function* aggregateCsv(q: SeriesQuery, byId: Map<string, Point[]>): AsyncGenerator<string> {
    yield header(q, q.ids);
    yield* rawRowChunks(q, byId, q.layout);
}

async function* tableCsv(q: SeriesQuery, ts: number[], columns: Map<string, Column>): AsyncGenerator<string> {
    const names = [...columns.keys()];
    let text = header(q, names);
    for (let i = 0; i < ts.length; i++) {
        text += csvRecord([ts[i], isoIn(ts[i], q.zone), ...names.map(name => cell(columns.get(name)!, i))]);
        if (i % ROWS_PER_CHUNK === ROWS_PER_CHUNK - 1) {
            yield text;
            text = '';
        }
    }
    yield text;
}

const cell = (column: Column, i: number): unknown => (isFailure(column) ? undefined : column[i]);

async function* longTableCsv(q: SeriesQuery, ts: number[], columns: Map<string, Column>): AsyncGenerator<string> {
    let text = header(q, []);
    for (const id of q.ids) {
        const column = columns.get(id);
        if (!column || isFailure(column)) {
            continue;
        }
        column.forEach((val, i) => {
            if (val !== null && val !== undefined) {
                text += csvRecord([id, ts[i], isoIn(ts[i], q.zone), val]);
            }
        });
        yield text;
        text = '';
    }
    yield text;
}

async function* longStatisticsCsv(q: SeriesQuery, byId: Map<string, BucketRow[] | Failure>): AsyncGenerator<string> {
    let text = header(q, []);
    for (const [id, rows] of byId) {
        if (isFailure(rows)) {
            continue;
        }
        for (const row of rows) {
            text += csvRecord([id, row.ts, isoIn(row.ts, q.zone), ...q.stats.map(stat => row[stat])]);
        }
        yield text;
        text = '';
    }
    yield text;
}

const failuresOf = <T>(byId: Map<string, T | Failure>): Record<string, Failure> =>
    Object.fromEntries([...byId].filter((entry): entry is [string, Failure] => isFailure(entry[1])));

export async function csvAnswer(reader: SeriesReader, q: SeriesQuery): Promise<CsvAnswer> {
    if (q.period) {
        const byId = await statistics(reader, q);
        if (q.layout === 'long') {
            return { failures: failuresOf(byId), chunks: longStatisticsCsv(q, byId) };
        }
        const { ts, columns } = alignedStatistics(q, byId);
        return { failures: failuresOf(byId), chunks: tableCsv(q, ts, columns) };
    }
    if (q.align) {
        const { ts, columns } = await alignedSteps(reader, q);
        return {
            failures: failuresOf(columns),
            chunks: q.layout === 'long' ? longTableCsv(q, ts, columns) : tableCsv(q, ts, columns),
        };
    }
    const raw = q.options.aggregate === undefined || q.options.aggregate === 'none';
    if (!raw && q.options.aggregate !== 'onchange') {
        const byId = await rawValues(reader, q);
        return { failures: failuresOf(byId), chunks: aggregateCsv(q, succeeded(byId)) };
    }
    // onchange too: read whole per id, history keeps a dense day file's newest values before the range
    const spans = new SpanReader(reader, HELD_VALUES, true);
    const windows = spans.spans(q.ids, q.start, q.end + 1);
    const first = await windows.next();
    const firstSpan = first.done ? { from: q.start, to: q.end + 1, byId: new Map<string, Point[]>() } : first.value;
    const borders = !raw && q.options.removeBorderValues !== true ? new Borders(reader, q) : undefined;
    await borders?.addHeads(firstSpan.byId, spans.failures);
    return { failures: Object.fromEntries(spans.failures), chunks: rawCsv(q, firstSpan, windows, borders) };
}

/**
 * The values onchange adds at the edges, as history adds them: at start the last value before it (else
 * null) where an id has none at start, at end the first value after it where the id's last is earlier.
 */
class Borders {
    private readonly lastTs = new Map<string, number>();

    constructor(
        private readonly reader: SeriesReader,
        private readonly q: SeriesQuery,
    ) {}

    /** Puts the value at start in front of each id's values of the first window. */
    async addHeads(byId: Map<string, Point[]>, failed: Map<string, Failure>): Promise<void> {
        const done = await this.reader.each(
            this.q.ids.filter(id => !failed.has(id)),
            async id => {
                const points = byId.get(id) ?? [];
                if (points[0]?.ts !== this.q.start) {
                    const before = await this.reader.before(id, this.q.start, 1);
                    byId.set(id, [{ ts: this.q.start, val: before?.val ?? null }, ...points]);
                }
                return undefined;
            },
        );
        for (const [id, result] of done) {
            if (isFailure(result)) {
                failed.set(id, result);
                byId.delete(id);
            }
        }
    }

    seen(byId: Map<string, Point[]>): void {
        for (const [id, points] of byId) {
            if (points.length) {
                this.lastTs.set(id, points[points.length - 1].ts);
            }
        }
    }

    /** The value at end of each id whose last value is earlier. */
    async tails(): Promise<Map<string, Point[]>> {
        const tails = new Map<string, Point[]>();
        for (const [id, ts] of this.lastTs) {
            if (ts < this.q.end) {
                const after = await this.reader.after(id, this.q.end, 1);
                tails.set(id, [{ ts: this.q.end, val: after?.val ?? null }]);
            }
        }
        return tails;
    }
}
