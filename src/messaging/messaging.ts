import { isAdministrator, type Acl } from '../access/rules';
import { HttpError } from '../http/http-error';
import type { CallerData } from '../storage/data';
import { deadline, type Timers } from '../instance/timers';

/** What a message needs of a request: the caller's data and rights, and the adapter's timers for the deadline. */
export interface Messenger {
    data: CallerData;
    acl: Acl;
    meta: { timers: Timers };
}

export const DEFAULT_MESSAGE_TIMEOUT_MS = 10_000;
export const MAX_MESSAGE_TIMEOUT_MS = 120_000;

function withTimeout<T>(
    timers: Timers,
    start: (done: (value: T) => void) => void,
    timeoutMs: number,
    what: string,
): Promise<T> {
    return new Promise((resolve, reject) => {
        const cancel = deadline(timers, timeoutMs, () =>
            reject(new HttpError('TIMEOUT', `timeout: no answer from ${what} within ${timeoutMs} ms`)),
        );
        // a late answer after the timeout is dropped: the promise is already settled
        start(value => {
            cancel();
            resolve(value);
        });
    });
}

/** `system.adapter.x.0` → `x.0`, refusing names that are no instance. */
export function instanceName(raw: string): string {
    const name = raw.replace(/^system\.adapter\./, '');
    if (!/^[a-z0-9_-]+\.\d+$/i.test(name)) {
        throw new HttpError('INVALID_PARAMS', `"${raw}" is not an instance name like "history.0"`, {
            context: { instance: raw },
        });
    }
    return name;
}

/** Fails fast with a clear error when the instance does not exist or does not run. */
export async function assertInstanceAlive(
    ctx: Messenger,
    name: string,
    context: Record<string, unknown> = {},
): Promise<void> {
    const obj = await ctx.data.adapterObject(`system.adapter.${name}`, context);
    if (!obj || (obj.type as string) !== 'instance') {
        throw new HttpError('NOT_FOUND', 'instance not found', { context: { instance: name } });
    }
    const alive = await ctx.data.adapterState(`system.adapter.${name}.alive`, context);
    if (!alive?.val) {
        throw new HttpError('UNAVAILABLE', 'instance is not online', { context: { instance: name } });
    }
}

/** The history adapters' (history, sql, influxdb) messages that only read. */
const HISTORY_READS = new Set([
    'getHistory',
    'getEnabledDPs',
    'getDpOverview',
    'getCounter',
    'features',
    'checkFeatureSupported',
]);
/** Their messages that change stored values or settings of the states they name. */
const HISTORY_WRITES = new Set([
    'storeState',
    'delete',
    'deleteAll',
    'deleteRange',
    'update',
    'enableHistory',
    'disableHistory',
]);

/** Whether the instance `name` keeps history (history, sql, influxdb): its adapter says getHistory, or its type is storage. */
export async function keepsHistory(ctx: Messenger, name: string): Promise<boolean> {
    const common = (await ctx.data.adapterObject(`system.adapter.${name}`))?.common as
        { getHistory?: boolean; type?: string } | undefined;
    return !!common?.getHistory || common?.type === 'storage';
}

/** Reads that name no state: they list every recorded id (and its settings, aliasIds included). */
const HISTORY_LISTINGS = new Set(['getEnabledDPs', 'getDpOverview']);
/** Reads that touch no recorded value. */
const HISTORY_FEATURES = new Set(['features', 'checkFeatureSupported']);
/**
 * Most values (or timestamps) one message may hand a history instance: history 5.0.1 handles a message
 * in one go and answers nothing else meanwhile, writing a day's file for values beyond its buffer
 * (10,001 values a day apart held it 3.4 s; a list of 10,001 was reported to stop it answering).
 */
export const MAX_HISTORY_MESSAGE_VALUES = 1000;

/**
 * A message to a history instance: reads need read rights on every series they reach (as `getHistory`
 * requires), changes need write rights on each (as `/v1/addHistory` requires) and must name them;
 * a series is that of the id, of its aliasIds and of the ids sharing its file name (history-rights.ts).
 * Listings of every recorded id, and anything else (raw database queries, `stopInstance`, ...), reach
 * past every state's ACL: only administrators send them.
 */
export async function assertMessageAllowed(
    ctx: Messenger,
    name: string,
    command: string,
    message: unknown,
): Promise<void> {
    if (!(await keepsHistory(ctx, name))) {
        return;
    }
    const ids = namedIds(message);
    if (HISTORY_WRITES.has(command)) {
        assertNamesStates(name, command, ids);
        assertFewValues(name, command, message);
    }
    const reads = HISTORY_READS.has(command) && !HISTORY_LISTINGS.has(command);
    for (const id of reads ? ids : []) {
        // the administrator too: no wildcard, no overlong id
        await ctx.data.assertMayReadHistory(id);
    }
    if (isAdministrator(ctx.acl) || HISTORY_FEATURES.has(command)) {
        return;
    }
    if (HISTORY_LISTINGS.has(command) || !(HISTORY_READS.has(command) || HISTORY_WRITES.has(command))) {
        throw new HttpError('FORBIDDEN', 'permissionError', { context: { instance: name, command } });
    }
    if (reads) {
        // without an id, history reads a series of its own choosing
        assertNamesStates(name, command, ids);
        return;
    }
    for (const id of ids) {
        await ctx.data.assertMayChangeHistory(id);
        if (command === 'enableHistory' || command === 'disableHistory') {
            await ctx.data.assertMayRewriteSettings(id);
        }
        if (command === 'enableHistory') {
            // history writes `options` as the id's settings with its own rights: checked as an object write of ours is
            const options = (message as { options?: unknown }).options;
            await ctx.data.assertMaySetHistorySettings(id, null, { common: { custom: { [name]: options ?? {} } } });
        }
    }
}

function assertNamesStates(name: string, command: string, ids: string[]): void {
    if (!ids.length) {
        throw new HttpError('INVALID_PARAMS', `${command} to a history instance must name the states it uses (id)`, {
            context: { instance: name },
        });
    }
}

/** 422 when a history message carries more than MAX_HISTORY_MESSAGE_VALUES values or timestamps. */
function assertFewValues(name: string, command: string, message: unknown): void {
    const items = Array.isArray(message) ? message : [message];
    let count = 0;
    for (const item of items) {
        const { state, ts } = (item ?? {}) as { state?: unknown; ts?: unknown };
        count += Array.isArray(state) ? state.length : Array.isArray(ts) ? ts.length : 1;
    }
    if (count > MAX_HISTORY_MESSAGE_VALUES) {
        throw new HttpError(
            'INVALID_PARAMS',
            `${command} to a history instance takes at most ${MAX_HISTORY_MESSAGE_VALUES} values per message (MAX_HISTORY_MESSAGE_VALUES); send them in parts`,
            { context: { instance: name, values: count } },
        );
    }
}

/**
 * The ids a history message names: `id` (one or a list), or a list of `{id}` (the list form of its
 * changes). 422 for an id that is not a non-empty text (history would take its text, unchecked) and for
 * a list item without one.
 */
function namedIds(message: unknown): string[] {
    const items = Array.isArray(message) ? message : [message];
    const ids: unknown[] = [];
    for (const item of items) {
        // history 5.0.1 reads `item.id` of every item of a list; one without (a text, `{}`) throws there and stops the instance
        if (
            Array.isArray(message) &&
            (!item || typeof item !== 'object' || (item as { id?: unknown }).id === undefined)
        ) {
            throw new HttpError(
                'INVALID_PARAMS',
                'every item of a list sent to a history instance must be an object with its id',
                {
                    context: { item: typeof item },
                },
            );
        }
        if (item && typeof item === 'object' && (item as { id?: unknown }).id !== undefined) {
            const id = (item as { id?: unknown }).id;
            // history 5.0.1 takes a list as one id, its text `a,b`: the series of that name counts too
            ids.push(...(Array.isArray(id) ? [...(id as unknown[]), id.join(',')] : [id]));
        }
    }
    for (const id of ids) {
        if (typeof id !== 'string' || id === '') {
            throw new HttpError(
                'INVALID_PARAMS',
                'every id in a message to a history instance must be a non-empty text',
                {
                    context: { id: typeof id === 'string' ? id : typeof id },
                },
            );
        }
    }
    return ids as string[];
}

/** sendTo with a deadline: every wait on another process ends, with an answer or a timeout error. */
export function sendToInstance(
    ctx: Messenger,
    name: string,
    command: string,
    message: unknown,
    timeoutMs = DEFAULT_MESSAGE_TIMEOUT_MS,
    context: Record<string, unknown> = {},
): Promise<unknown> {
    return withTimeout(
        ctx.meta.timers,
        done => ctx.data.sendTo(name, command, message, done, { timeout: timeoutMs + 1000 }, context),
        timeoutMs,
        name,
    );
}

/** The host running js-controller answers host commands; without one (`npm start`) this fails fast. */
export async function sendToHost(
    ctx: Messenger,
    host: string,
    command: string,
    message: unknown,
    timeoutMs = DEFAULT_MESSAGE_TIMEOUT_MS,
): Promise<unknown> {
    const id = host.startsWith('system.host.') ? host : `system.host.${host}`;
    const alive = await ctx.data.adapterState(`${id}.alive`);
    if (!alive?.val) {
        throw new HttpError('UNAVAILABLE', `host ${id.slice('system.host.'.length)} is not running`, {
            context: { host },
        });
    }
    return withTimeout(ctx.meta.timers, done => ctx.data.sendToHost(id, command, message, done), timeoutMs, id);
}
