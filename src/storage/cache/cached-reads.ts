import { mayReadObject, mayReadState, seesAll } from '../../access/rules';
import { narrowObject } from '../../access/scope';
import { adapterCall, fromAdapterError } from '../adapter-errors';
import { isPattern } from '../../access/patterns';
import {
    assertInReadScope,
    isEnum,
    mayReadThrough,
    withVisibleMembers,
    type ReadCaller,
} from '../../access/read-checks';
import type { StoragePort } from '../port';
import type { CoherentCache } from './coherent-cache';

/** A caller's reads: its rights, the caches, and js-controller (with the caller's options) for what they leave to it. */
export interface CachedReader extends ReadCaller {
    states: CoherentCache<ioBroker.State>;
    objects: CoherentCache<ioBroker.Object>;
    port: StoragePort;
    /** A new object on every call: js-controller writes into the options it is given. */
    options(): { user: string; limitToOwnerRights?: boolean };
}

const PERMISSION_ERROR = 'permissionError';

/** Ids the caches leave to js-controller: patterns, and aliases (their values are derived from others). */
export function uncachable(ctx: CachedReader, id: string): boolean {
    return !!ctx.ownerOnly || isPattern(id) || id.startsWith('alias.');
}

/** Refuses as js-controller does when the caller may not read this state or object (the rules listings share). */
function assertMayRead(
    ctx: CachedReader,
    kind: 'state' | 'object',
    id: string,
    obj: ioBroker.Object | null | undefined,
    context: Record<string, unknown>,
): void {
    const allowed = kind === 'object' ? mayReadObject(ctx.acl, id, obj) : mayReadState(ctx.acl, id, obj, ctx.ownerOnly);
    if (!allowed) {
        throw fromAdapterError(PERMISSION_ERROR, context);
    }
}

/** An object as the caller may see it: a scoped token's view of enum members narrowed to its patterns. */
function seen<T extends ioBroker.Object | null | undefined>(ctx: CachedReader, obj: T): T {
    const scope = ctx.acl.token?.scope;
    return scope && obj ? narrowObject(scope, obj) : obj;
}

/** `readObject` without waiting: the object (null: none), or undefined when the cache cannot answer now. */
export function peekObject(
    ctx: CachedReader,
    id: string,
    context: Record<string, unknown> = { id },
): ioBroker.Object | null | undefined {
    if (uncachable(ctx, id)) {
        return undefined;
    }
    // before the cache is asked: whether an id outside a token's scope exists is not the token's to learn
    assertInReadScope(ctx, id, context);
    const obj = ctx.objects.peek(id);
    if (obj) {
        assertMayRead(ctx, 'object', id, obj, context);
        if (obj.type === 'enum' && !seesAll(ctx.acl)) {
            // its members are checked one by one: readObject waits for them
            return undefined;
        }
    }
    return seen(ctx, obj);
}

/** `readState` without waiting: the state (null: none), or undefined when the caches cannot answer now. */
export function peekState(ctx: CachedReader, id: string): ioBroker.State | null | undefined {
    if (uncachable(ctx, id)) {
        return undefined;
    }
    if (!seesAll(ctx.acl)) {
        const obj = ctx.objects.peek(id);
        if (obj === undefined) {
            return undefined;
        }
        assertMayRead(ctx, 'state', id, obj, { id });
    }
    return ctx.states.peek(id);
}

/**
 * An object as `getForeignObject` with the caller's rights answers it, from the coherent cache, an
 * enum with only the members the caller may read; `whole` (to merge a write into) keeps them all.
 * Shared with the cache: copy before changing it.
 */
export async function readObject(
    ctx: CachedReader,
    id: string,
    context: Record<string, unknown> = { id },
    whole = false,
): Promise<ioBroker.Object | null> {
    const obj = await readCheckedObject(ctx, id, context);
    if (whole) {
        return obj;
    }
    const shown = seen(ctx, obj);
    return isEnum(shown) ? withVisibleMembers(ctx, shown) : shown;
}

async function readCheckedObject(
    ctx: CachedReader,
    id: string,
    context: Record<string, unknown>,
): Promise<ioBroker.Object | null> {
    assertInReadScope(ctx, id, context);
    if (uncachable(ctx, id)) {
        const obj = (await adapterCall(ctx.port.getForeignObjectAsync(id, ctx.options()), context)) ?? null;
        if (obj && !isPattern(id)) {
            // js-controller 7.2.3's getForeignObject hands the caller to its objects DB in the wrong place: nothing is checked
            assertMayRead(ctx, 'object', id, obj, context);
        }
        return obj;
    }
    const obj = await adapterCall(ctx.objects.get(id), context);
    if (obj) {
        assertMayRead(ctx, 'object', id, obj, context);
    }
    return obj;
}

/**
 * `readState` when the caller has already read the state's object (so it may read it): the state may
 * have been fetched from the cache meanwhile (`early`), and only the state rule is left to check.
 */
export async function readStateOf(
    ctx: CachedReader,
    obj: ioBroker.Object,
    early: Promise<ioBroker.State | null>,
): Promise<ioBroker.State | null> {
    assertMayRead(ctx, 'state', obj._id, obj, { id: obj._id });
    ctx.states.admitAsked(obj._id);
    return adapterCall(early, { id: obj._id });
}

/** A state as `getForeignState` with the caller's rights answers it, from the coherent cache. */
export async function readState(ctx: CachedReader, id: string): Promise<ioBroker.State | null> {
    assertInReadScope(ctx, id, { id });
    if (uncachable(ctx, id)) {
        const state = (await adapterCall(ctx.port.getForeignStateAsync(id, ctx.options()), { id })) ?? null;
        if (!seesAll(ctx.acl) && !isPattern(id)) {
            // js-controller checked the state bits; the object rule and the group right are ours to add,
            // and for an alias its source's rule: js-controller reads the source with its own rights
            const obj = await adapterCall(ctx.objects.get(id), { id });
            assertMayRead(ctx, 'state', id, obj, { id });
            if (!(await mayReadThrough(ctx, id, obj))) {
                throw fromAdapterError(PERMISSION_ERROR, { id });
            }
        }
        return state;
    }
    const hit = peekState(ctx, id);
    if (hit !== undefined) {
        return hit;
    }
    if (!seesAll(ctx.acl)) {
        assertMayRead(ctx, 'state', id, await adapterCall(ctx.objects.get(id), { id }), { id });
    }
    return adapterCall(ctx.states.get(id), { id });
}
