import { inScope, mayReadState, mayWriteState, seesAll, type Acl, type Guarded } from './rules';
import { mayWriteObject } from './write-policy';
import { HttpError } from '../http/http-error';

/*
 * Which recorded series a history request on an id reaches, and whether the caller may use them.
 * A history instance does not keep one series per id: `common.custom.<instance>.aliasId` (history, sql,
 * influxdb) makes it read, append to and delete the series of another id, and history names its files
 * by the id with `| * , ; " ' < > ? : / \` turned into `~`, so several ids share one file. The rights
 * therefore count on every id whose values a series holds, not only on the id that was asked for.
 */

/** What the checks need: the caller's rights and the objects as the adapter sees them (a ReadCaller fits). */
export interface SeriesCaller {
    acl: Acl;
    ownerOnly: boolean;
    objectOf(id: string): Promise<ioBroker.Object | null>;
    stateObjectsBetween(first: string, last: string): Promise<Array<{ id: string; value?: unknown }>>;
    /** Every object with history (custom) settings: js-controller's `custom` view, its value `common.custom`. */
    customSettings(): Promise<Array<{ id: string; value?: unknown }>>;
}

/** Reading a series, or changing it (storeState, update, delete..., enableHistory). */
export type SeriesUse = 'read' | 'change';

/** The characters history 5.0.1 replaces by `~` in a file name (`getSafeId`), and `~` itself. */
// eslint-disable-next-line no-control-regex -- \u0000 is one of them
const SHARES_NAME = /[\u0000|*,;"'<>?:/\\~]/;
// eslint-disable-next-line no-control-regex -- \u0000 is one of them
const REPLACED = /[\u0000|*,;"'<>?:/\\]/g;
/**
 * The characters history puts as `~` into a file name, and `~` itself, as the few runs of neighbouring
 * characters that hold them: a view per run finds the ids with one of them at a place (each view goes
 * over every state object in js-controller, so fewer views, at the cost of a few other characters).
 */
const NAME_CHARACTER_RUNS: Array<[string, string]> = [
    ['\u0000', '\u0000'],
    ['"', ','],
    ['/', '/'],
    [':', '?'],
    ['\\', '\\'],
    ['|', '~'],
];
/** At most this many objects are compared for a shared file name; a wider range is refused, not scanned. */
export const MAX_SHARED_NAME_SCAN = 2000;
const BELOW = '\u9999';
/** The part of an id before such a character must reach into the third part of the id (`a.0.x`). */
const CHECKABLE_PREFIX = /^[^.]+\.[^.]+\.[^.]/;

/** The file name part of `id` in history 5.0.1. */
export function storageName(id: string): string {
    return id.replace(REPLACED, '~');
}

/** `common.custom` settings as a record of instances, empty for anything else. */
function settingsOf(custom: unknown): Record<string, unknown> {
    return custom && typeof custom === 'object' ? (custom as Record<string, unknown>) : {};
}

function customOf(obj: unknown): Record<string, unknown> {
    return settingsOf((obj as { common?: { custom?: unknown } } | null | undefined)?.common?.custom);
}

/** The aliasIds in `common.custom` settings, of every instance. */
function aliasIdsIn(custom: Record<string, unknown>): unknown[] {
    return Object.values(custom).map(settings => (settings as { aliasId?: unknown } | null)?.aliasId);
}

/** The series ids the aliasIds in `common.custom` settings name, once each. */
function targetsIn(custom: Record<string, unknown>): string[] {
    const targets = new Set<string>();
    for (const aliasId of aliasIdsIn(custom)) {
        if (aliasId) {
            targets.add(String(aliasId));
        }
    }
    return [...targets];
}

/**
 * The aliasIds of an object's history settings, of every instance: not every caller knows the instance yet.
 * history 5.0.1 takes any truthy aliasId and uses its text as the id (`['a']` is `a`, `['a', 'b']` is `a,b`).
 */
export function aliasTargets(obj: unknown): string[] {
    return targetsIn(customOf(obj));
}

/** Whether an object has history settings of any instance (they may record its values into a file). */
export function hasHistorySettings(obj: unknown): boolean {
    return Object.values(customOf(obj)).some(settings => !!settings && typeof settings === 'object');
}

/** 422 for an aliasId in `common.custom` settings that is neither text nor empty: history would read it as its text. */
function assertAliasIdsAreText(id: string, custom: Record<string, unknown>): void {
    const bad = aliasIdsIn(custom).find(
        aliasId => aliasId !== undefined && aliasId !== null && typeof aliasId !== 'string',
    );
    if (bad !== undefined) {
        throw new HttpError(
            'INVALID_PARAMS',
            'aliasId in history settings (common.custom) must be a state id (text) or empty',
            {
                context: { id, aliasId: typeof bad },
            },
        );
    }
}

function forbidden(id: string, reason?: string): HttpError {
    return new HttpError('FORBIDDEN', 'permissionError', { context: reason ? { id, reason } : { id } });
}

function allowed(ctx: SeriesCaller, id: string, obj: Guarded, use: SeriesUse): boolean {
    return (
        inScope(ctx.acl, 'read', id) &&
        mayReadState(ctx.acl, id, obj, ctx.ownerOnly) &&
        (use === 'read' || (inScope(ctx.acl, 'write', id) && mayWriteState(ctx.acl, id, obj, ctx.ownerOnly)))
    );
}

/** 422 for an id whose sharers of a file name would be every id of an adapter, or of all: no view is read for it. */
function assertCheckableName(series: string, asked = series): void {
    const at = series.search(SHARES_NAME);
    if (at >= 0 && !CHECKABLE_PREFIX.test(series.slice(0, at))) {
        throw new HttpError(
            'INVALID_PARAMS',
            'not a state id history can check: a character history puts as ~ into file names comes before its third part (adapter.instance.name)',
            { context: { id: asked.slice(0, 100) } },
        );
    }
}

/**
 * Throws 403 unless the caller may use every existing state whose file name is that of `series`
 * (`asked` is what the error names: never the other state). They begin like `series` up to its first
 * such character and have one of them there: only those ids are read (objects are read whole, so a range
 * over every id beginning alike would be held in memory); more than MAX_SHARED_NAME_SCAN are refused.
 */
export async function assertSharersAllowed(
    ctx: SeriesCaller,
    series: string,
    use: SeriesUse,
    asked = series,
): Promise<void> {
    const at = series.search(SHARES_NAME);
    if (at < 0) {
        return;
    }
    assertCheckableName(series, asked);
    const before = series.slice(0, at);
    const name = storageName(series);
    let read = 0;
    for (const [first, last] of NAME_CHARACTER_RUNS) {
        const rows = await ctx.stateObjectsBetween(before + first, before + last + BELOW);
        read += rows.length;
        if (read > MAX_SHARED_NAME_SCAN) {
            throw forbidden(
                asked,
                `more than ${MAX_SHARED_NAME_SCAN} ids begin like it: its shared file name is not checked`,
            );
        }
        for (const row of rows) {
            const sharer = row.id !== series && row.id.length === series.length && storageName(row.id) === name;
            if (sharer && !allowed(ctx, row.id, row.value as Guarded, use)) {
                throw forbidden(asked);
            }
        }
    }
}

/**
 * Throws 403 unless a limited caller may read (or change) the state `target` whose series another id
 * reaches through its aliasId: it must be a state object the caller may read (and write), as must
 * every state that shares its file name.
 */
export async function assertMayUseAliasTarget(
    ctx: SeriesCaller,
    target: string,
    use: SeriesUse,
    asked: string,
): Promise<void> {
    const obj = await ctx.objectOf(target);
    if ((obj as { type?: unknown } | null)?.type !== 'state' || !allowed(ctx, target, obj, use)) {
        throw forbidden(asked);
    }
    await assertSharersAllowed(ctx, target, use, asked);
    // the target's series also holds what other states whose aliasId names it recorded
    await assertAliasedFromAllowed(ctx, target, use, asked);
}

/**
 * Throws 403 unless the caller may read (or change) every series a history request on `id` reaches:
 * the id's own (as the id's own rule decides, `ownRule`), its aliasIds' and all that share a file name
 * with them. The administrator passes without a lookup.
 */
export async function assertMayUseSeries(
    ctx: SeriesCaller,
    id: string,
    use: SeriesUse,
    ownRule: (obj: ioBroker.Object | null) => boolean,
): Promise<void> {
    if (seesAll(ctx.acl)) {
        return;
    }
    // the token's scope before the object: an id outside it costs no lookup and warms no cache
    if (!inScope(ctx.acl, 'read', id) || (use === 'change' && !inScope(ctx.acl, 'write', id))) {
        throw forbidden(id);
    }
    assertCheckableName(id);
    const obj = await ctx.objectOf(id);
    if (!ownRule(obj)) {
        throw forbidden(id);
    }
    await assertSharersAllowed(ctx, id, use);
    for (const target of aliasTargets(obj)) {
        await assertMayUseAliasTarget(ctx, target, use, id);
    }
    await assertAliasedFromAllowed(ctx, id, use);
}

/**
 * Throws 403 unless the caller may read (or change) every state whose history settings name `series`
 * (or an id of the same file name) as their aliasId: history files those states' values under
 * `series`, so its series holds them. history maps every aliasId at its start, enabled or not.
 * A value written to `series` is appended to that same file, settings of its own or not: a change.
 */
export async function assertAliasedFromAllowed(
    ctx: SeriesCaller,
    series: string,
    use: SeriesUse,
    asked = series,
): Promise<void> {
    const name = storageName(series);
    for (const row of await ctx.customSettings()) {
        const names = targetsIn(settingsOf(row.value));
        if (row.id !== series && names.some(target => target === series || storageName(target) === name)) {
            if (!allowed(ctx, row.id, await ctx.objectOf(row.id), use)) {
                throw forbidden(asked);
            }
        }
    }
}

/**
 * Throws 403 when a write of an object (or enableHistory) gives `id` history settings that reach a series
 * the caller may not read and write: a new or changed aliasId, or settings that start recording into a
 * file name shared with such a state. Unchanged settings pass (an administrator may have made them).
 */
export async function assertMaySetHistorySettings(
    ctx: SeriesCaller,
    id: string,
    before: unknown,
    after: unknown,
): Promise<void> {
    if (seesAll(ctx.acl)) {
        return;
    }
    const old = customOf(before);
    const changed = Object.entries(customOf(after)).filter(
        ([instance, settings]) => settings && JSON.stringify(settings) !== JSON.stringify(old[instance]),
    );
    if (!changed.length) {
        return;
    }
    await assertSharersAllowed(ctx, id, 'change');
    const oldTargets = new Set(aliasTargets(before));
    const custom = Object.fromEntries(changed);
    for (const target of targetsIn(custom)) {
        if (!oldTargets.has(target)) {
            await assertMayUseAliasTarget(ctx, target, 'change', id);
        }
    }
    // after the rights: a list naming a series the caller may not use is a 403 like its text would be
    assertAliasIdsAreText(id, custom);
}

/**
 * Throws 403 unless the caller may write the object `id` itself: enableHistory and disableHistory make the
 * history instance rewrite its settings with its own rights, as a PUT of the object would.
 */
export async function assertMayRewriteSettings(ctx: SeriesCaller, id: string): Promise<void> {
    if (seesAll(ctx.acl)) {
        return;
    }
    const existing = await ctx.objectOf(id);
    if (!existing || !mayWriteObject(ctx.acl, id, existing, existing, ctx.ownerOnly)) {
        throw forbidden(id);
    }
}
