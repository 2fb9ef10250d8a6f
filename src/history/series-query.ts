/*
 * What `GET /v1/history` and `POST /v1/history` ask for, read from the query text or a JSON body and
 * checked in one place: the ids, the range, the getHistory options with their real types, and how the
 * answer is shaped (aligned, CSV wide or long, calendar statistics). Bounds answer 422 naming the limit.
 */
import type { ParamProblem } from '../http/http-error';
import { paramsError } from '../http/parse-params';
import { isTrueFlag } from '../http/query';
import { PERIODS, type Period } from './calendar';
import { STATS, type Stat } from './statistics';
import { knownZone, parseTime, systemZone } from './times';
import { MAX_ANSWER_VALUES } from '../messaging/history';

/** Ids per request. */
export const MAX_IDS = 100;
/** Values per id in a JSON answer, and steps or buckets per id of an aligned or statistics answer. */
export const MAX_POINTS = MAX_ANSWER_VALUES;
/** Values (or steps, or buckets) of all ids of one answer that is held whole: its memory. */
export const MAX_VALUES = 1_000_000;
/** getHistory calls one request may make: ids × days of a raw CSV or statistics (ten ids over ten years). */
export const MAX_CALLS = 40_000;
const DAY_MS = 24 * 3600 * 1000;
/** The reading before a range is looked for this many days back (statistics with change). */
export const BEFORE_DAYS = 31;
/** From start to end: ten years. */
export const MAX_RANGE_MS = 10 * 366 * 24 * 3600 * 1000;
const WEEK_MS = 7 * 24 * 3600 * 1000;

export const SERIES_AGGREGATES = [
    'none',
    'onchange',
    'minmax',
    'min',
    'max',
    'average',
    'total',
    'count',
    'percentile',
    'quantile',
    'integral',
] as const;
/** Aggregates that give one value per step, so that a step lines up with the other ids' steps. */
const ONE_PER_STEP = new Set(['min', 'max', 'average', 'total', 'count', 'percentile', 'quantile', 'integral']);

type Kind = 'number' | 'flag' | 'text';
/** getHistory options handed to the history instance as they are, with their real types. */
const PASSED: Record<string, Kind> = {
    count: 'number',
    limit: 'number',
    step: 'number',
    round: 'number',
    percentile: 'number',
    quantile: 'number',
    integralUnit: 'number',
    ack: 'flag',
    q: 'flag',
    from: 'flag',
    addId: 'flag',
    removeBorderValues: 'flag',
    returnNewestEntries: 'flag',
    integralInterpolation: 'text',
};

export interface SeriesQuery {
    ids: string[];
    start: number;
    end: number;
    /** getHistory options besides id, start, end and instance. */
    options: Record<string, unknown>;
    instance?: string;
    align: boolean;
    format: 'json' | 'csv';
    layout: 'wide' | 'long';
    period?: Period;
    stats: Stat[];
    zone: string;
    /** Values per id a whole answer may hold: MAX_POINTS, less with many ids (MAX_VALUES in all). */
    valuesPerId: number;
}

const given = (value: unknown): boolean => value !== undefined && value !== null && value !== '';

/** A list as text (`a,b`) or an array; empty parts dropped. */
function listOf(value: unknown): string[] {
    const parts = Array.isArray(value)
        ? value.map(v => (typeof v === 'string' ? v : ''))
        : typeof value === 'string'
          ? value.split(',')
          : [];
    return parts.map(part => part.trim()).filter(Boolean);
}

function oneOf<T extends string>(
    raw: unknown,
    name: string,
    allowed: readonly T[],
    problems: ParamProblem[],
): T | undefined {
    if (!given(raw)) {
        return undefined;
    }
    if (allowed.includes(String(raw) as T)) {
        return String(raw) as T;
    }
    problems.push({ param: name, problem: `must be one of ${allowed.join(', ')}` });
    return undefined;
}

function passedOptions(raw: Record<string, unknown>, problems: ParamProblem[]): Record<string, unknown> {
    const options: Record<string, unknown> = {};
    for (const [key, kind] of Object.entries(PASSED)) {
        const value = raw[key];
        if (!given(value)) {
            continue;
        }
        if (kind === 'flag') {
            options[key] = isTrueFlag(value);
        } else if (kind === 'text') {
            options[key] = String(value);
        } else {
            const n = typeof value === 'number' ? value : Number(value);
            if (Number.isFinite(n) && n >= 0) {
                options[key] = n;
            } else {
                problems.push({ param: key, problem: 'must be a number of at least 0' });
            }
        }
    }
    // the history adapters take true, false or 0 (nulls replaced by 0)
    if (given(raw.ignoreNull)) {
        options.ignoreNull = raw.ignoreNull === 0 || raw.ignoreNull === '0' ? 0 : isTrueFlag(raw.ignoreNull);
    }
    return options;
}

/** A 422 naming the limit, e.g. `ids per request`, with the limit and what was asked. */
function bound(param: string, limit: string, asked: number, max: number): ParamProblem {
    return { param, problem: `at most ${max.toLocaleString('en')} ${limit} (asked: ${asked.toLocaleString('en')})` };
}

const PERIOD_MS: Record<Period, number> = { hour: 3_600_000, day: DAY_MS, week: 7 * DAY_MS, month: 28 * DAY_MS };

/** Accept names text/csv, and not with q=0. */
function acceptsCsv(accept: string): boolean {
    return accept
        .split(',')
        .some(part => /^\s*text\/csv\s*(;|$)/i.test(part) && !/;\s*q\s*=\s*0(\.0*)?\s*(;|$)/i.test(part));
}

function idProblems(ids: string[]): ParamProblem[] {
    if (!ids.length) {
        return [{ param: 'ids', problem: 'required: one or more state ids, comma-separated' }];
    }
    return ids.length > MAX_IDS ? [bound('ids', 'ids per request', ids.length, MAX_IDS)] : [];
}

/**
 * The ids of a request alone, checked (422 for none or too many): the rights on them are checked
 * before anything else of the request is read, so a refused request costs no parsing of times and zones.
 */
export function requestedIds(raw: Record<string, unknown>): string[] {
    const ids = [...new Set(listOf(raw.ids))];
    const problems = idProblems(ids);
    if (problems.length) {
        throw paramsError(problems, ['ids']);
    }
    return ids;
}

/**
 * The request read from `raw` (query text or JSON body) with `accept` the Accept header; throws 422
 * listing every problem.
 */
export function seriesQuery(raw: Record<string, unknown>, accept = '', now = Date.now()): SeriesQuery {
    const problems: ParamProblem[] = [];
    const ids = [...new Set(listOf(raw.ids))];
    problems.push(...idProblems(ids));
    const zoneName = given(raw.tz) ? String(raw.tz) : systemZone();
    const zone = knownZone(zoneName);
    if (!zone) {
        problems.push({ param: 'tz', problem: 'must be a time zone such as Europe/Berlin or UTC' });
    }
    const time = (name: 'start' | 'end', fallback: number): number => {
        if (!given(raw[name])) {
            return fallback;
        }
        const parsed = parseTime(raw[name], now, zone ?? 'UTC');
        if (typeof parsed === 'number') {
            return parsed;
        }
        problems.push({ param: name, problem: parsed.problem });
        return fallback;
    };
    const end = time('end', now);
    const start = time('start', end - WEEK_MS);
    if (start > end) {
        problems.push({ param: 'start', problem: 'must not be after end' });
    } else if (end - start > MAX_RANGE_MS) {
        problems.push(
            bound('end', 'days from start to end', Math.ceil((end - start) / 86_400_000), MAX_RANGE_MS / 86_400_000),
        );
    }
    const options = passedOptions(raw, problems);
    const aggregate = oneOf(raw.aggregate, 'aggregate', SERIES_AGGREGATES, problems);
    if (aggregate) {
        options.aggregate = aggregate;
    }
    const period = oneOf(raw.period, 'period', PERIODS, problems);
    const statNames = given(raw.stat) ? listOf(raw.stat) : period ? ['mean'] : [];
    const stats = statNames.filter((s): s is Stat => (STATS as readonly string[]).includes(s));
    if (stats.length !== statNames.length || (given(raw.stat) && !stats.length)) {
        problems.push({ param: 'stat', problem: `must be one or more of ${STATS.join(', ')}` });
    }
    if (stats.length && !period) {
        problems.push({ param: 'stat', problem: 'needs period (hour, day, week or month)' });
    }
    if (period && aggregate && aggregate !== 'none') {
        problems.push({
            param: 'aggregate',
            problem: 'statistics are computed from the raw values: leave aggregate out with period',
        });
    }
    const align = isTrueFlag(raw.align);
    const step = options.step as number | undefined;
    if (align && !period && !(aggregate && ONE_PER_STEP.has(aggregate) && step)) {
        problems.push({
            param: 'align',
            problem: `needs step with an aggregate giving one value per step (${[...ONE_PER_STEP].join(', ')}), or period`,
        });
    }
    const wantsCsv = acceptsCsv(accept);
    const format = oneOf(raw.format, 'format', ['json', 'csv'] as const, problems) ?? (wantsCsv ? 'csv' : 'json');
    const layout = oneOf(raw.layout, 'layout', ['wide', 'long'] as const, problems) ?? 'wide';
    if (given(raw.layout) && format !== 'csv') {
        problems.push({ param: 'layout', problem: 'is for CSV (format=csv or Accept: text/csv)' });
    }
    if (given(raw.instance) && typeof raw.instance !== 'string') {
        problems.push({ param: 'instance', problem: 'must be an instance name such as history.0' });
    }
    const query: SeriesQuery = {
        ids,
        start,
        end,
        options,
        instance: given(raw.instance) ? String(raw.instance) : undefined,
        align,
        format,
        layout,
        period,
        stats,
        zone: zone!,
        valuesPerId: Math.max(1, Math.min(MAX_POINTS, Math.floor(MAX_VALUES / Math.max(1, ids.length)))),
    };
    problems.push(...boundProblems(query));
    if (problems.length) {
        throw paramsError(problems, ['ids']);
    }
    return query;
}

/** What the request would cost beyond the bounds: values held per id, calls to the history instance, option ranges. */
function boundProblems(q: SeriesQuery): ParamProblem[] {
    const problems: ParamProblem[] = [];
    const { start, end, period, options } = q;
    const perId = `per id with ${q.ids.length} id${q.ids.length === 1 ? '' : 's'}`;
    const step = options.step as number | undefined;
    if (q.align && step && !period && (end - start) / step > q.valuesPerId) {
        problems.push(bound('step', `steps ${perId}`, Math.ceil((end - start) / step), q.valuesPerId));
    }
    if (period && (end - start) / PERIOD_MS[period] > q.valuesPerId) {
        problems.push(bound('period', `buckets ${perId}`, Math.ceil((end - start) / PERIOD_MS[period]), q.valuesPerId));
    }
    for (const key of ['count', 'limit'] as const) {
        const n = options[key] as number | undefined;
        if (n !== undefined && n > q.valuesPerId) {
            problems.push(bound(key, `values ${perId}`, n, q.valuesPerId));
        }
    }
    for (const [key, max] of [
        ['percentile', 100],
        ['quantile', 1],
    ] as const) {
        if (options[key] !== undefined && (options[key] as number) > max) {
            problems.push({ param: key, problem: `must be between 0 and ${max}` });
        }
    }
    if (options.integralUnit === 0) {
        problems.push({ param: 'integralUnit', problem: 'must be more than 0 seconds' });
    }
    // raw values a day at a time (CSV and JSON, onchange too; statistics): each id and day is a call to
    // the history instance
    const aggregate = options.aggregate;
    const raw = aggregate === undefined || aggregate === 'none' || aggregate === 'onchange';
    const daily = period !== undefined || (!q.align && raw);
    const calls =
        q.ids.length * (Math.ceil((end - start + 1) / DAY_MS) + (q.stats.includes('change') ? BEFORE_DAYS : 0));
    if (daily && calls > MAX_CALLS) {
        problems.push(bound('end', 'id-days per request (ids × days from start to end)', calls, MAX_CALLS));
    }
    return problems;
}
