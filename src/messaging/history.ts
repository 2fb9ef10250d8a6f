import { HttpError, type ParamProblem } from '../http/http-error';
import { paramsError } from '../http/parse-params';
import { isTrueFlag } from '../http/query';
import type { Config } from '../instance/config';
import { assertInstanceAlive, instanceName, keepsHistory, sendToInstance, type Messenger } from './messaging';

/** What a history request needs: the caller, and the configured default history instance. */
interface HistoryCaller extends Messenger {
    user: string;
    meta: Messenger['meta'] & { config: Pick<Config, 'dataSource'> };
}

export const HISTORY_TIMEOUT_MS = 20_000;

/** The history instance: explicit, else the configured `dataSource`, else the system default. */
export async function historyInstance(
    ctx: HistoryCaller,
    explicit?: string,
    context: Record<string, unknown> = {},
): Promise<string> {
    let name = explicit || ctx.meta.config.dataSource;
    if (!name) {
        const config = await ctx.data.adapterObject('system.config', context);
        name = (config?.common as { defaultHistory?: string } | undefined)?.defaultHistory ?? '';
    }
    if (!name) {
        throw new HttpError('INVALID_PARAMS', 'No dataSource defined!');
    }
    const instance = instanceName(name);
    await assertInstanceAlive(ctx, instance, context);
    return instance;
}

export interface HistoryAnswer {
    result?: unknown[];
    step?: number;
    sessionId?: unknown;
    error?: string;
}

/** Values of one id in one answer held whole, as `/v1/history` bounds a JSON answer of one id. */
export const MAX_ANSWER_VALUES = 100_000;

/**
 * `count` and `limit` as history reads them (parseInt: a text or a list counts as its number), bounded:
 * below 0 is a 422 (history threw on it and stopped); above MAX_ANSWER_VALUES, an aggregate's is asked
 * as one more than it (an answer that fits is the one 4.0.2 gave, more is a 422), raw values' are a
 * 422: history applies a count to a day file's newest values before the range, so a smaller one would
 * lose values in range without a word. `aggregate` is the one history applies when none is given.
 */
function bounded(
    options: Record<string, unknown>,
    aggregate: string,
): { options: Record<string, unknown>; clamped: boolean } {
    let clamped = false;
    const within = { ...options };
    const raw = ['none', 'onchange'].includes(String(options.aggregate || aggregate));
    for (const key of ['count', 'limit'] as const) {
        const asked = within[key] === undefined ? NaN : parseInt(String(within[key]), 10);
        if (Number.isNaN(asked)) {
            continue;
        }
        if (asked < 0) {
            throw paramsError([{ param: key, problem: 'must be 0 or more' }], [key]);
        }
        within[key] = asked;
        if (asked > MAX_ANSWER_VALUES && raw) {
            throw paramsError(
                [
                    {
                        param: key,
                        problem: `at most ${MAX_ANSWER_VALUES.toLocaleString('en')} raw values are asked of the history instance: /v1/history reads more in windows, or use an aggregate`,
                    },
                ],
                [key],
            );
        }
        if (asked > MAX_ANSWER_VALUES) {
            within[key] = MAX_ANSWER_VALUES + 1;
            clamped = true;
        }
    }
    return { options: within, clamped };
}

/**
 * Asks the history instance for values of one state; the caller must be allowed to read that state.
 * A count or limit over MAX_ANSWER_VALUES holds at most that many (422 beyond).
 */
export async function readHistory(
    ctx: HistoryCaller,
    id: string,
    asked: Record<string, unknown>,
    context: Record<string, unknown> = {},
): Promise<HistoryAnswer> {
    // without an aggregate, askHistory asks for none
    const { options, clamped } = bounded(asked, 'none');
    const answer = await askHistory(ctx, id, options, context);
    assertWithinBound(answer, clamped, asked, { ...context, id });
    return answer;
}

function assertWithinBound(
    answer: unknown,
    clamped: boolean,
    asked: Record<string, unknown>,
    context: Record<string, unknown>,
): void {
    const result = (answer as HistoryAnswer | null | undefined)?.result;
    if (clamped && Array.isArray(result) && result.length > MAX_ANSWER_VALUES) {
        throw new HttpError(
            'INVALID_PARAMS',
            `at most ${MAX_ANSWER_VALUES.toLocaleString('en')} values per answer (asked: ${String(asked.count ?? asked.limit)}): narrow the range or use an aggregate`,
            { context: { ...context, limit: MAX_ANSWER_VALUES } },
        );
    }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
    !!value && typeof value === 'object' && !Array.isArray(value);

/**
 * A message through sendTo as it goes: a getHistory to a history instance bounded as readHistory's
 * (history's own default aggregate is average), anything else as it is; `check` refuses an answer
 * beyond the bound.
 */
export async function boundedMessage(
    ctx: Messenger,
    instance: string,
    command: string,
    message: unknown,
): Promise<{ message: unknown; check(reply: unknown): void }> {
    const asked =
        command === 'getHistory' && isRecord(message) && isRecord(message.options) ? message.options : undefined;
    if (!asked || !(await keepsHistory(ctx, instance))) {
        return { message, check: () => undefined };
    }
    const { options, clamped } = bounded(asked, 'average');
    return {
        message: { ...(message as object), options },
        check: reply => assertWithinBound(reply, clamped, asked, { instance }),
    };
}

/** sendTo with its answer, the message bounded as boundedMessage says. */
export async function sendToBounded(
    ctx: Messenger,
    instance: string,
    command: string,
    message: unknown,
    timeoutMs: number,
): Promise<unknown> {
    const bound = await boundedMessage(ctx, instance, command, message);
    const reply = await sendToInstance(ctx, instance, command, bound.message, timeoutMs);
    bound.check(reply);
    return reply;
}

async function askHistory(
    ctx: HistoryCaller,
    id: string,
    options: Record<string, unknown>,
    context: Record<string, unknown> = {},
): Promise<HistoryAnswer> {
    // the read rule of a single state read, which 4.0.2 skipped for history; no wildcard, no id without its object
    await ctx.data.assertMayReadHistory(id);
    const instance = await historyInstance(
        ctx,
        typeof options.instance === 'string' ? options.instance : undefined,
        context,
    );
    const now = Date.now();
    const query = {
        aggregate: 'none',
        end: now + 5_000_000,
        ...(options.count === undefined && options.start === undefined ? { start: now - 7 * 24 * 3600 * 1000 } : {}),
        ...options,
        instance,
        user: ctx.user,
    };
    return (
        (await sendToInstance(ctx, instance, 'getHistory', { id, options: query }, HISTORY_TIMEOUT_MS, context)) ?? {}
    );
}

type OptionKind = 'number' | 'flag' | 'text';

const HISTORY_OPTIONS: Record<string, OptionKind> = {
    start: 'number',
    end: 'number',
    count: 'number',
    limit: 'number',
    step: 'number',
    percentile: 'number',
    quantile: 'number',
    from: 'flag',
    ack: 'flag',
    q: 'flag',
    addId: 'flag',
    ignoreNull: 'flag',
    removeBorderValues: 'flag',
    returnNewestEntries: 'flag',
    integralUnit: 'text',
    integralInterpolation: 'text',
    instance: 'text',
};

/** The fields of a value for `storeState` besides `val`. */
const STATE_FIELDS: Record<string, OptionKind> = { ts: 'number', q: 'number', ack: 'flag', from: 'text' };

export const AGGREGATES = [
    'minmax',
    'max',
    'min',
    'average',
    'total',
    'count',
    'percentile',
    'quantile',
    'integral',
    'none',
];

const given = (value: unknown): boolean => value !== undefined && value !== null && value !== '';

/** Picks the known keys from query text or a JSON body, converted to their kind; unknown keys are dropped. */
function pickOptions(
    raw: Record<string, unknown>,
    kinds: Record<string, OptionKind>,
    problems: ParamProblem[],
): Record<string, unknown> {
    const options: Record<string, unknown> = {};
    for (const [key, kind] of Object.entries(kinds).filter(([k]) => given(raw[k]))) {
        const value = raw[key];
        const n = typeof value === 'number' ? value : parseFloat(String(value));
        if (kind === 'flag') {
            options[key] = isTrueFlag(value);
        } else if (kind === 'text') {
            options[key] = value;
        } else if (Number.isFinite(n)) {
            options[key] = n;
        } else {
            problems.push({ param: key, problem: 'must be a number (dates in ms)' });
        }
    }
    return options;
}

function throwProblems(problems: ParamProblem[]): void {
    if (problems.length) {
        throw paramsError(problems, []);
    }
}

/** The getHistory options (start, end, count, aggregate, ...) of the REST routes. */
export function historyOptions(raw: Record<string, unknown>): Record<string, unknown> {
    const problems: ParamProblem[] = [];
    const options = pickOptions(raw, HISTORY_OPTIONS, problems);
    if (given(raw.aggregate)) {
        if (AGGREGATES.includes(String(raw.aggregate))) {
            options.aggregate = raw.aggregate;
        } else {
            problems.push({ param: 'aggregate', problem: `must be one of ${AGGREGATES.join(', ')}` });
        }
    }
    throwProblems(problems);
    return options;
}

/** A value for `storeState`: `ts` defaults to now; `ts`, `q`, `ack` and `from` from query text or JSON. */
export function historyState(raw: Record<string, unknown>, val: unknown): Record<string, unknown> {
    const problems: ParamProblem[] = [];
    const fields = pickOptions(raw, STATE_FIELDS, problems);
    throwProblems(problems);
    return { ts: Date.now(), ...fields, val };
}

/** Hands one value to the history instance (`storeState`); the caller must be allowed to write the state. */
export async function storeState(
    ctx: HistoryCaller,
    id: string,
    state: Record<string, unknown>,
    context: Record<string, unknown> = {},
): Promise<unknown> {
    await ctx.data.assertMayChangeHistory(id);
    const instance = await historyInstance(ctx, undefined, context);
    const answer = await sendToInstance(ctx, instance, 'storeState', { id, state }, HISTORY_TIMEOUT_MS, context);
    if (answer === undefined || answer === null) {
        throw new HttpError('BAD_GATEWAY', 'The history instance answered nothing', { context: { id } });
    }
    const error = typeof answer === 'string' ? answer : (answer as { error?: unknown }).error;
    if (error) {
        throw new HttpError('BAD_GATEWAY', String(error), { context: { id } });
    }
    return answer;
}
