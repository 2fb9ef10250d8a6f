import { ADMIN_USER, mayRead } from '../acl';
import type { RequestContext } from '../request-context';
import { adapterCall, fromAdapterError } from './adapter-errors';
import { isPattern } from './pattern';

const PERMISSION_ERROR = 'permissionError';

/** Ids the caches leave to js-controller: patterns, and aliases (their values are derived from others). */
function uncachable(ctx: RequestContext, id: string): boolean {
    return !!ctx.callOptions.limitToOwnerRights || isPattern(id) || id.startsWith('alias.');
}

/** Refuses as js-controller does when the caller may not read this state or object. */
function assertMayRead(ctx: RequestContext, kind: 'state' | 'object', obj: ioBroker.Object | null | undefined, context: Record<string, unknown>): void {
    if (!mayRead(ctx.acl, kind, obj?.acl)) {
        throw fromAdapterError(PERMISSION_ERROR, context);
    }
}

/** `readObject` without waiting: the object (null: none), or undefined when the cache cannot answer now. */
export function peekObject(ctx: RequestContext, id: string, context: Record<string, unknown> = { id }): ioBroker.Object | null | undefined {
    if (uncachable(ctx, id)) {
        return undefined;
    }
    const obj = ctx.app.objectCache.peek(id);
    if (obj) {
        assertMayRead(ctx, 'object', obj, context);
    }
    return obj;
}

/** `readState` without waiting: the state (null: none), or undefined when the caches cannot answer now. */
export function peekState(ctx: RequestContext, id: string): ioBroker.State | null | undefined {
    if (uncachable(ctx, id)) {
        return undefined;
    }
    if (ctx.user !== ADMIN_USER) {
        const obj = ctx.app.objectCache.peek(id);
        if (obj === undefined) {
            return undefined;
        }
        assertMayRead(ctx, 'state', obj, { id });
    }
    return ctx.app.stateCache.peek(id);
}

/**
 * An object as `getForeignObject` with the caller's rights answers it, from the coherent cache.
 * Shared with the cache: copy before changing it.
 */
export async function readObject(ctx: RequestContext, id: string, context: Record<string, unknown> = { id }): Promise<ioBroker.Object | null> {
    if (uncachable(ctx, id)) {
        return (await adapterCall(ctx.adapter.getForeignObjectAsync(id, ctx.callOptions), context)) ?? null;
    }
    const hit = peekObject(ctx, id, context);
    if (hit !== undefined) {
        return hit;
    }
    const obj = await adapterCall(ctx.app.objectCache.get(id), context);
    if (obj) {
        assertMayRead(ctx, 'object', obj, context);
    }
    return obj;
}

/** A state as `getForeignState` with the caller's rights answers it, from the coherent cache. */
export async function readState(ctx: RequestContext, id: string): Promise<ioBroker.State | null> {
    if (uncachable(ctx, id)) {
        return (await adapterCall(ctx.adapter.getForeignStateAsync(id, ctx.callOptions), { id })) ?? null;
    }
    const hit = peekState(ctx, id);
    if (hit !== undefined) {
        return hit;
    }
    if (ctx.user !== ADMIN_USER) {
        assertMayRead(ctx, 'state', await adapterCall(ctx.app.objectCache.get(id), { id }), { id });
    }
    return adapterCall(ctx.app.stateCache.get(id), { id });
}
