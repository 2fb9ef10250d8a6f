import {
    inScope,
    inScopeTree,
    seesAll,
    mayReadObject,
    mayReadState,
    mayWriteState,
    type Acl,
    type Guarded,
} from './rules';
import { narrowObject } from './scope';
import { assertMayUseSeries } from './history-rights';
import { HttpError } from '../http/http-error';

/*
 * The one per-id read check of every path that answers or delivers more than one id. js-controller's
 * pattern and view reads do not filter per-state or per-object ACLs for us, so each such answer
 * passes through here and keeps exactly the ids a single read of that id would answer.
 */

/** Who reads, and the objects as the adapter sees them: what the checks decide by (never what they answer). */
export interface ReadCaller {
    acl: Acl;
    /** onlyAllowWhenUserIsOwner: only the owner bits of a state's ACL count. */
    ownerOnly: boolean;
    /** An object as the adapter sees it (kept coherent), null for none; fails as an HttpError. */
    objectOf(id: string): Promise<ioBroker.Object | null>;
    /** The state objects of the system view from `first` to `last`, as the adapter sees them. */
    stateObjectsBetween(first: string, last: string): Promise<Array<{ id: string; value?: unknown }>>;
    /** Every object with history (custom) settings, its value `common.custom`. */
    customSettings(): Promise<Array<{ id: string; value?: unknown }>>;
}

/** What the scope checks need: an API token's patterns are in the ACL. */
type Scoped = Pick<ReadCaller, 'acl'>;

export interface ReadAccess {
    object(id: string, obj: Guarded): boolean;
    state(id: string, obj: Guarded): boolean;
}

/** The caller's read check; null for the administrator, who reads everything without a per-id cost. */
export function readAccess(ctx: ReadCaller): ReadAccess | null {
    if (seesAll(ctx.acl)) {
        return null;
    }
    const { acl, ownerOnly } = ctx;
    return {
        object: (id, obj) => mayReadObject(acl, id, obj),
        state: (id, obj) => mayReadState(acl, id, obj, ownerOnly),
    };
}

/**
 * The state an alias reads from or writes to (`common.alias.id`: one id, or `{ read, write }`);
 * undefined for anything else. js-controller follows it only for `alias.` ids, with its own rights.
 */
export function aliasSource(id: string, obj: unknown, direction: 'read' | 'write' = 'read'): string | undefined {
    if (!id.startsWith('alias.')) {
        return undefined;
    }
    const target = (obj as { common?: { alias?: { id?: unknown } } } | null | undefined)?.common?.alias?.id;
    const named = target && typeof target === 'object' ? (target as Record<string, unknown>)[direction] : target;
    return typeof named === 'string' && named !== '' ? named : undefined;
}

/**
 * Whether reading the alias `id` shows nothing the caller may not read: its value is its source's,
 * so the source's state rule applies too. True at once for every other state (no lookup).
 */
export function mayReadThrough(ctx: ReadCaller, id: string, obj: unknown): boolean | Promise<boolean> {
    const source = aliasSource(id, obj);
    if (!source || seesAll(ctx.acl)) {
        return true;
    }
    return ctx.objectOf(source).then(target => mayReadState(ctx.acl, source, target, ctx.ownerOnly));
}

/** A dictionary id → object without the objects the caller may not read, enums without the members it may not. */
export async function visibleObjects<T extends Guarded>(
    ctx: ReadCaller,
    objects: Record<string, T>,
): Promise<Record<string, T>> {
    const access = readAccess(ctx);
    if (!access) {
        return objects;
    }
    const scope = ctx.acl.token?.scope;
    const visible: Record<string, T> = {};
    for (const [id, obj] of Object.entries(objects)) {
        if (access.object(id, obj)) {
            const seen = scope ? narrowObject(scope, obj) : obj;
            // only enums wait: a listing of thousands of objects pays no promise per entry
            visible[id] = isEnum(seen) ? await withVisibleMembers(ctx, seen) : seen;
        }
    }
    return visible;
}

/** View rows `{id, value}` whose object the caller may read; `value` is the object in js-controller's system views. */
export async function visibleRows<R extends { id: string; value?: unknown }>(ctx: ReadCaller, rows: R[]): Promise<R[]> {
    const access = readAccess(ctx);
    if (!access) {
        return rows;
    }
    const visible: R[] = [];
    for (const row of rows) {
        const given = row.value as Guarded & { common?: unknown };
        // a view that answers something else than the object (e.g. custom settings): look it up
        const obj = given && typeof given === 'object' && 'common' in given ? given : await ctx.objectOf(row.id);
        if (access.object(row.id, obj)) {
            const scope = ctx.acl.token?.scope;
            const value = scope && row.value ? narrowObject(scope, row.value) : row.value;
            visible.push(
                value === row.value && !isEnum(value)
                    ? row
                    : { ...row, value: isEnum(value) ? await withVisibleMembers(ctx, value) : value },
            );
        }
    }
    return visible;
}

/**
 * The objects of the ids of a state listing, as the adapter sees them: one view over their range for a
 * pattern listing (the ids came from that view), the coherent cache for a short list.
 */
async function stateObjects(ctx: ReadCaller, ids: string[], byRange: boolean): Promise<Map<string, Guarded>> {
    const objects = new Map<string, Guarded>();
    if (!ids.length) {
        return objects;
    }
    if (!byRange) {
        for (const id of ids) {
            objects.set(id, await ctx.objectOf(id));
        }
        return objects;
    }
    const sorted = [...ids].sort();
    for (const row of await ctx.stateObjectsBetween(sorted[0], sorted[sorted.length - 1])) {
        objects.set(row.id, row.value as Guarded);
    }
    return objects;
}

/**
 * A dictionary id → state without the states the caller may not read. A pattern listing leaves them
 * out (old clients keep their shapes); a list of ids is refused whole, as a single forbidden id is.
 */
export async function visibleStates<T>(
    ctx: ReadCaller,
    states: Record<string, T>,
    fromList: boolean,
): Promise<Record<string, T>> {
    const access = readAccess(ctx);
    if (!access) {
        return states;
    }
    const ids = Object.keys(states);
    const objects = await stateObjects(ctx, ids, !fromList);
    const visible: Record<string, T> = {};
    for (const id of ids) {
        const obj = objects.get(id);
        if (access.state(id, obj) && (await mayReadThrough(ctx, id, obj))) {
            visible[id] = states[id];
        } else if (fromList) {
            throw new HttpError('FORBIDDEN', 'permissionError', { context: { id } });
        }
    }
    return visible;
}

/**
 * The ids of these state objects (as the adapter sees them) whose state the caller may read, decided
 * as a single read of each would be; every id for the administrator.
 */
export async function readableStateIds(ctx: ReadCaller, objects: Record<string, Guarded>): Promise<string[]> {
    const access = readAccess(ctx);
    const ids = Object.keys(objects);
    if (!access) {
        return ids;
    }
    const readable: string[] = [];
    for (const id of ids) {
        if (access.state(id, objects[id]) && (await mayReadThrough(ctx, id, objects[id]))) {
            readable.push(id);
        }
    }
    return readable;
}

/** Throws 403 when an API token's read patterns leave `id` out (checked before anything is read). */
export function assertInReadScope(ctx: Scoped, id: string, context: Record<string, unknown> = { id }): void {
    if (!inScope(ctx.acl, 'read', id)) {
        throw new HttpError('FORBIDDEN', 'permissionError', { context });
    }
}

/** Throws 403 when an API token may not write `id` (`tree`: a recursive delete, all below it too). */
export function assertInWriteScope(
    ctx: Scoped,
    id: string,
    context: Record<string, unknown> = { id },
    tree = false,
): void {
    if (!(tree ? inScopeTree(ctx.acl, id) : inScope(ctx.acl, 'write', id))) {
        throw new HttpError('FORBIDDEN', 'permissionError', { context });
    }
}

/** Throws 403 unless the caller may write the state `id`. */
export async function assertMayWriteState(ctx: ReadCaller, id: string): Promise<void> {
    if (!seesAll(ctx.acl) && !mayWriteState(ctx.acl, id, await ctx.objectOf(id), ctx.ownerOnly)) {
        throw new HttpError('FORBIDDEN', 'permissionError', { context: { id } });
    }
}

/** Longest id a history read takes: ids name files of the history instance. */
export const MAX_HISTORY_ID_LENGTH = 512;
/** A wildcard makes the history adapter read every state's history; control characters name no state. */
// eslint-disable-next-line no-control-regex -- control characters are what it refuses
const NOT_A_HISTORY_ID = /[*?\u0000-\u001f]/;

/**
 * Throws unless the caller may read the stored history of the state `id`: 422 for a wildcard or an
 * id too long to be one; then, for callers with limits, 403 unless `id` is a state object they may
 * read, and every series it reaches (its aliasIds', a file name shared with other ids) readable too.
 * The history adapters look up ids that have no object too, so an id without one is no way around the rights.
 */
export async function assertMayReadHistory(ctx: ReadCaller, id: string): Promise<void> {
    if (id.length > MAX_HISTORY_ID_LENGTH || NOT_A_HISTORY_ID.test(id)) {
        throw new HttpError(
            'INVALID_PARAMS',
            `not a state id: no wildcards, at most ${MAX_HISTORY_ID_LENGTH} characters`,
            {
                context: { id: id.slice(0, 100) },
            },
        );
    }
    const access = readAccess(ctx);
    if (access) {
        await assertMayUseSeries(ctx, id, 'read', obj => (obj?.type as unknown) === 'state' && access.state(id, obj));
        // a history instance records an alias's values under the alias's id: they are its source's
        if (id.startsWith('alias.') && !(await mayReadThrough(ctx, id, await ctx.objectOf(id)))) {
            throw new HttpError('FORBIDDEN', 'permissionError', { context: { id } });
        }
    }
}

/**
 * Throws 403 unless the caller may change the stored history of `id` (storeState, delete, enableHistory...):
 * for callers with limits `id` must be a state object they may read and write (a series left without its
 * object, or of a write-only state, is not theirs to wipe), and every series it reaches readable and
 * writable too (history-rights.ts).
 */
export async function assertMayChangeHistory(ctx: ReadCaller, id: string): Promise<void> {
    await assertMayUseSeries(
        ctx,
        id,
        'change',
        obj =>
            (obj?.type as unknown) === 'state' &&
            mayReadState(ctx.acl, id, obj, ctx.ownerOnly) &&
            mayWriteState(ctx.acl, id, obj, ctx.ownerOnly),
    );
}

/** Throws 403 unless the caller may read the state `id` (history, messages naming a state). */
export async function assertMayReadState(ctx: ReadCaller, id: string): Promise<void> {
    const access = readAccess(ctx);
    const obj = access ? await ctx.objectOf(id) : null;
    if (access && !(access.state(id, obj) && (await mayReadThrough(ctx, id, obj)))) {
        throw new HttpError('FORBIDDEN', 'permissionError', { context: { id } });
    }
}

export function isEnum(obj: unknown): obj is { type: 'enum'; common: { members: unknown[] } } {
    const given = obj as { type?: unknown; common?: { members?: unknown } } | null | undefined;
    return given?.type === 'enum' && Array.isArray(given.common?.members);
}

/**
 * An enum whose `common.members` names only objects the caller may read (ids alone reveal a house);
 * anything else as it is. Every path that answers an object passes here: single reads, listings, views.
 */
export async function withVisibleMembers<T>(ctx: ReadCaller, obj: T): Promise<T> {
    const access = readAccess(ctx);
    if (!access || !isEnum(obj)) {
        return obj;
    }
    const visible: string[] = [];
    for (const id of obj.common.members) {
        if (typeof id === 'string' && access.object(id, await ctx.objectOf(id).catch(() => null))) {
            visible.push(id);
        }
    }
    return visible.length === obj.common.members.length ? obj : { ...obj, common: { ...obj.common, members: visible } };
}

/** A dictionary of enums the caller may read, each with only its readable members. */
export function visibleEnums(
    ctx: ReadCaller,
    enums: Record<string, ioBroker.Object>,
): Promise<Record<string, ioBroker.Object>> {
    return visibleObjects(ctx, enums);
}

/** The top-level entries of the file storage (one per meta object) whose meta object the caller may read. */
export async function visibleMetaEntries<E extends { file: string }>(ctx: ReadCaller, entries: E[]): Promise<E[]> {
    const access = readAccess(ctx);
    if (!access || !Array.isArray(entries)) {
        return entries;
    }
    const visible: E[] = [];
    for (const entry of entries) {
        if (access.object(entry.file, await ctx.objectOf(entry.file).catch(() => null))) {
            visible.push(entry);
        }
    }
    return visible;
}
