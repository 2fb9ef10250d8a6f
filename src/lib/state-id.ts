import { HttpError } from '../http-error';
import type { RequestContext } from '../request-context';
import { peekObject, readObject } from './cached-reads';

export interface ResolvedState {
    id: string;
    obj: ioBroker.Object | null;
}

/** `resolveStateId` from the cache alone; undefined when that needs the DB. */
export function peekStateId(ctx: RequestContext, idOrName: string): ResolvedState | undefined {
    let obj: ioBroker.Object | null | undefined;
    try {
        obj = peekObject(ctx, idOrName);
    } catch {
        obj = null;
    }
    if (obj) {
        return { id: obj._id || idOrName, obj };
    }
    // a miss, or a name lookup for users who may list objects
    return obj === null && !ctx.acl.object.list ? { id: idOrName, obj: null } : undefined;
}

/**
 * Resolves a state route's id the way 4.0.2 does: as an object id first, then by name for users
 * who may list objects; users who may not get the raw id back.
 */
export async function resolveStateId(ctx: RequestContext, idOrName: string): Promise<ResolvedState> {
    let obj: ioBroker.Object | null | undefined = null;
    try {
        obj = await readObject(ctx, idOrName);
    } catch {
        obj = null;
    }
    if (obj) {
        return { id: obj._id || idOrName, obj };
    }
    if (!ctx.acl.object.list) {
        return { id: idOrName, obj: null };
    }
    const byName = await ctx.app.names.lookup(idOrName);
    if (!byName) {
        throw new HttpError('NOT_FOUND', 'ID not found', { id: idOrName });
    }
    const named = await ctx.adapter.getForeignObjectAsync(byName, ctx.callOptions).catch(() => null);
    return { id: byName, obj: named ?? null };
}

export function splitIds(raw: string): string[] {
    return raw
        .split(',')
        .map(id => id.trim())
        .filter(Boolean);
}
