/*
 * `GET /v1/history?ids=a,b,c` and `POST /v1/history`: several ids in one request from the history
 * instance, as JSON, aligned on one time axis, as calendar statistics, or as CSV (wide or long)
 * written while it is read. Every id is checked against the caller's read rights before anything is read.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { dateTime } from '../history/luxon';
import { HttpError } from '../http/http-error';
import { Reply, type StreamWriter } from '../http/send';
import { FreeObject } from '../http/schemas';
import { historyInstance } from '../messaging/history';
import { keepsHistory } from '../messaging/messaging';
import { csvAnswer, jsonAnswer } from '../history/series-answer';
import {
    MAX_IDS,
    MAX_POINTS,
    requestedIds,
    SERIES_AGGREGATES,
    seriesQuery,
    type SeriesQuery,
} from '../history/series-query';
import { claimRequest, SeriesReader } from '../history/series-read';
import { isRawJson, rawJsonAnswer } from '../history/raw-json';
import { PERIODS } from '../history/calendar';
import { STATS } from '../history/statistics';
import type { RequestContext } from '../context/request-context';
import { defineRoute } from '../routing/route';

const SENDTO = { type: 'other', operation: 'sendto' } as const;
const JSON_TYPE = 'application/json; charset=utf-8';

const text = (description: string): TSchema => Type.Optional(Type.String({ description }));
const number = (description: string): TSchema => Type.Optional(Type.Number({ minimum: 0, description }));
const flag = (description: string): TSchema => Type.Optional(Type.Boolean({ description }));
const TIME =
    'ms since 1970, ISO 8601 (without an offset: in tz) or relative: now, -24h, -7d, now-30m (units s, m, h, d, w)';

/** The parameters of both routes: query text for GET, the same names in a JSON body for POST. */
const FIELDS = {
    start: text(`Start: ${TIME}. Default: a week before end`),
    end: text(`End: ${TIME}. Default: now`),
    aggregate: Type.Optional(
        Type.Union(
            SERIES_AGGREGATES.map(a => Type.Literal(a)),
            { description: 'Aggregation by the history instance (default none)' },
        ),
    ),
    step: number('Interval in ms of an aggregate'),
    count: number(`Values per id (at most ${MAX_POINTS})`),
    limit: number(`Largest number of values per id (at most ${MAX_POINTS})`),
    round: number('Decimal places'),
    percentile: number('0-100, for aggregate=percentile'),
    quantile: number('0-1, for aggregate=quantile'),
    integralUnit: number('Seconds, for aggregate=integral'),
    integralInterpolation: Type.Optional(
        Type.Union([Type.Literal('none'), Type.Literal('linear')], { description: 'For aggregate=integral' }),
    ),
    ack: flag('Add the ack field'),
    q: flag('Add the q field'),
    from: flag('Add the from field'),
    addId: flag('Add the id field'),
    ignoreNull: Type.Optional(
        Type.Union([Type.Literal('true'), Type.Literal('false'), Type.Literal('0')], {
            description: 'Leave out null values (true), or replace them by 0',
        }),
    ),
    removeBorderValues: flag('Leave out the values just outside start and end'),
    returnNewestEntries: flag('With count: the newest values'),
    instance: text('History instance (default: the configured dataSource, else the system default)'),
    align: flag(
        'One time axis `ts` (the start of each step or period) with a column per id, null where an id has no value',
    ),
    period: Type.Optional(
        Type.Union(
            PERIODS.map(p => Type.Literal(p)),
            { description: 'Statistics per calendar hour, day, week (from Monday) or month of tz' },
        ),
    ),
    stat: text(
        `With period: one or more of ${STATS.join(', ')} (default mean). change: what a meter counted, a counter restart handled`,
    ),
    tz: text("Time zone of period, of times without an offset and of the iso column (default: this system's)"),
    format: Type.Optional(
        Type.Union([Type.Literal('json'), Type.Literal('csv')], { description: 'csv: as Accept: text/csv does' }),
    ),
    layout: Type.Optional(
        Type.Union([Type.Literal('wide'), Type.Literal('long')], {
            description: 'CSV: wide (ts,iso,<id>...) or long (id,ts,iso,val)',
        }),
    ),
};

const POINTS = Type.Array(FreeObject, {
    description: 'The values of one id: {ts, val, ...}; booleans and strings keep their type',
});
const FAILURE = Type.Object(
    { error: Type.String(), status: Type.Integer() },
    { description: 'This id failed while others answered: what the single-id route would have said' },
);
const JSON_ANSWER = Type.Record(Type.String(), Type.Union([POINTS, Type.Array(Type.Unknown()), FAILURE]), {
    description: 'Per id its values, or with align `ts` and a column per id; statistics rows {ts, end, mean, ...}',
});
const CSV_ANSWER = Type.String({ description: 'RFC 4180 CSV: wide `ts,iso,<id>...` or long `id,ts,iso,val`' });

const DESCRIPTION = [
    `Several ids (at most ${MAX_IDS}) from the history instance in one request, each read with the caller's read rights:`,
    'an id the caller may not read refuses the whole request (403) without any value.',
    'JSON by default; with align=true one time axis and a column per id; with period calendar statistics;',
    'with Accept: text/csv or format=csv a CSV file, written while it is read.',
    'Ids that failed while others answered: in place of their values in JSON, in the X-History-Errors header in CSV.',
    'A chart of these values: /api-doc/chart?ids=<ids>&start=-24h.',
].join(' ');

const RESPONSES = {
    200: {
        description: 'The values',
        content: { 'application/json': JSON_ANSWER, 'text/csv': CSV_ANSWER },
    },
};

const fileDay = (ts: number, zone: string): string => dateTime().fromMillis(ts, { zone }).toFormat('yyyyMMdd');

function fileName(q: SeriesQuery): string {
    const what = q.ids.length === 1 ? q.ids[0].replace(/[^\w.-]/g, '_') : 'history';
    return `${what}_${fileDay(q.start, q.zone)}-${fileDay(q.end, q.zone)}.csv`;
}

/** Writes the chunks as the client takes them; a failure midway breaks the answer instead of ending a half file as whole. */
async function pump(out: StreamWriter, chunks: AsyncGenerator<string>, done: () => void): Promise<void> {
    try {
        for await (const chunk of chunks) {
            if (out.signal.aborted) {
                await chunks.return(undefined);
                return;
            }
            out.write(chunk);
            await out.drained();
        }
        out.end();
    } catch {
        out.abort();
    } finally {
        done();
    }
}

/** The failures of some ids as a header: ASCII only (Node refuses other characters in headers), and short. */
export function errorsHeader(failures: Record<string, unknown>): string {
    const text = JSON.stringify(failures).replace(
        /[\u007f-\uffff]/g,
        c => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
    return text.length > MAX_ERRORS_HEADER
        ? JSON.stringify({ ids: Object.keys(failures).length, error: 'several ids failed; ask for them one by one' })
        : text;
}

const MAX_ERRORS_HEADER = 4096;

/** The named history instance, or the default one; 422 for an instance that keeps no history. */
async function historyReader(ctx: RequestContext, q: SeriesQuery, gone: AbortSignal): Promise<SeriesReader> {
    const instance = await historyInstance(ctx, q.instance, { ids: q.ids });
    if (!(await keepsHistory(ctx, instance))) {
        throw new HttpError('INVALID_PARAMS', `${instance} keeps no history`, { context: { instance } });
    }
    return new SeriesReader(ctx, instance, q.options, gone);
}

async function answer(
    raw: Record<string, unknown>,
    accept: string | undefined,
    ctx: RequestContext,
    gone: () => AbortSignal,
): Promise<unknown> {
    for (const id of requestedIds(raw)) {
        // every id before anything is read (a refused one leaks no value of the others either), and
        // before times and zones are parsed: a refused request leaves nothing behind
        await ctx.data.assertMayReadHistory(id);
    }
    const q = seriesQuery(raw, accept);
    const release = claimRequest(ctx.user);
    let streaming = false;
    try {
        const signal = gone();
        const reader = await historyReader(ctx, q, signal);
        if (isRawJson(q)) {
            // read whole (a 422 is still possible), then written a window's text at a time
            const chunks = await rawJsonAnswer(reader, q);
            streaming = true;
            return Reply.stream(out => void pump(out, chunks, release), signal, { 'Content-Type': JSON_TYPE });
        }
        if (q.format === 'json') {
            return Reply.json(await jsonAnswer(reader, q));
        }
        const csv = await csvAnswer(reader, q);
        const headers: Record<string, string> = {
            'Content-Type': 'text/csv; charset=utf-8; header=present',
            'Content-Disposition': `attachment; filename="${fileName(q)}"`,
        };
        if (Object.keys(csv.failures).length) {
            headers['X-History-Errors'] = errorsHeader(csv.failures);
        }
        streaming = true;
        return Reply.stream(out => void pump(out, csv.chunks, release), signal, headers);
    } finally {
        if (!streaming) {
            release();
        }
    }
}

export const historySeriesRoute = defineRoute({
    method: 'GET',
    path: '/v1/history',
    scoped: 'ids',
    summary: 'Several ids from the history instance: JSON, aligned, statistics or CSV',
    description: DESCRIPTION,
    tag: 'history',
    permission: SENDTO,
    waits: true,
    responses: RESPONSES,
    errors: [404, 429, 502, 504],
    query: Type.Object({
        ids: Type.String({ description: `State ids, comma-separated (at most ${MAX_IDS})` }),
        ...FIELDS,
    }),
    handler: ({ input, headers, goneSignal }, ctx) => answer(input, headers.accept, ctx, goneSignal!),
});

export const postHistorySeriesRoute = defineRoute({
    method: 'POST',
    path: '/v1/history',
    scoped: 'ids',
    summary: 'Several ids from the history instance, for a JSON body {ids: [...], start, end, ...}',
    description: `${DESCRIPTION} The body takes the parameters of GET /v1/history, ids as a list; for long id lists.`,
    tag: 'history',
    permission: SENDTO,
    waits: true,
    responses: RESPONSES,
    errors: [404, 429, 502, 504],
    body: 'json',
    // 100 ids of up to 512 characters and the options
    bodyLimit: 128 * 1024,
    requestBody: Type.Object({
        ids: Type.Union([Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }), Type.String({ minLength: 1 })], {
            description: 'State ids',
        }),
        ...FIELDS,
        ignoreNull: Type.Optional(
            Type.Union([Type.Boolean(), Type.Literal(0)], {
                description: 'Leave out null values (true), or replace them by 0',
            }),
        ),
    }),
    handler: ({ body, headers, goneSignal }, ctx) =>
        answer(body as Record<string, unknown>, headers.accept, ctx, goneSignal!),
});
