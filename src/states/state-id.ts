import { HttpError } from '../http/http-error';
import type { RequestContext } from '../context/request-context';
import { assertInReadScope } from '../access/read-checks';

export interface ResolvedState {
    id: string;
    obj: ioBroker.Object | null;
}

/** An id resolved from its object; undefined when a name lookup must follow. */
function resolvedFrom(ctx: RequestContext, idOrName: string, obj: ioBroker.Object | null): ResolvedState | undefined {
    if (obj) {
        return { id: obj._id || idOrName, obj };
    }
    // users who may not list objects get the raw id back; the others may have given a name
    return ctx.acl.object.list ? undefined : { id: idOrName, obj: null };
}

/** `resolveStateId` from the cache alone; undefined when that needs the DB. */
export function peekStateId(ctx: RequestContext, idOrName: string): ResolvedState | undefined {
    let obj: ioBroker.Object | null | undefined;
    try {
        obj = ctx.data.peekObject(idOrName);
    } catch {
        obj = null;
    }
    return obj === undefined ? undefined : resolvedFrom(ctx, idOrName, obj);
}

/**
 * Resolves a state route's id the way 4.0.2 does: as an object id first, then by name for users
 * who may list objects; users who may not get the raw id back.
 */
export async function resolveStateId(ctx: RequestContext, idOrName: string): Promise<ResolvedState> {
    let obj: ioBroker.Object | null;
    try {
        obj = await ctx.data.readObject(idOrName);
    } catch {
        obj = null;
    }
    const resolved = resolvedFrom(ctx, idOrName, obj);
    if (resolved) {
        return resolved;
    }
    const byName = await ctx.data.idOfName(idOrName);
    if (!byName) {
        // an API token naming an id outside its read patterns: refused, whether it exists or not
        assertInReadScope(ctx, idOrName);
        throw new HttpError('NOT_FOUND', 'ID not found', { context: { id: idOrName } });
    }
    // a name must not reveal the id behind it to a token whose scope leaves that id out
    assertInReadScope(ctx, byName, { id: idOrName });
    // nor to a caller who may not read its object: answered as an unknown name, the id stays unsaid
    const named = await ctx.data.readObject(byName).catch(() => null);
    if (!named) {
        throw new HttpError('NOT_FOUND', 'ID not found', { context: { id: idOrName } });
    }
    return { id: byName, obj: named };
}

export function splitIds(raw: string): string[] {
    return raw
        .split(',')
        .map(id => id.trim())
        .filter(Boolean);
}
