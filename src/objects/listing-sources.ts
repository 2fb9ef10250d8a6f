import type { RequestContext } from '../request-context';
import { seesAll } from '../access/rules';
import { adapterCall } from '../storage/adapter-errors';
import type { ListingSource } from './listing-pages';
import { visibleObjects, visibleStates } from '../access/read-checks';

/*
 * Where the state and object listings come from, whole or for the ids of one page, with the
 * caller's read rights applied either way. Routes and listing commands share these.
 */

/** States matching `pattern`; the admin's whole listings come from the coherent listing cache. */
export function stateSource(ctx: RequestContext, pattern: string): ListingSource {
    return {
        all() {
            if (seesAll(ctx.acl) && !ctx.ownerOnly) {
                return ctx.app.listingCache.peek(pattern) ?? adapterCall(ctx.app.listingCache.get(pattern), { filter: pattern });
            }
            return adapterCall(ctx.storage.getForeignStatesAsync(pattern, ctx.callOptions), { filter: pattern }).then(states => visibleStates(ctx, states ?? {}, false));
        },
        async some(ids) {
            const states = (await adapterCall(ctx.storage.getForeignStatesAsync(ids, ctx.callOptions))) ?? {};
            const present: Record<string, ioBroker.State> = {};
            for (const id of ids) {
                // a state deleted since the walk began is not listed, as a pattern would not list it
                if (states[id]) {
                    present[id] = states[id];
                }
            }
            return visibleStates(ctx, present, false);
        },
    };
}

/** Objects matching `pattern` of one type (js-controller lists state objects when none is given), each with its `enums`. */
export function objectSource(ctx: RequestContext, pattern: string, type: string | undefined): ListingSource {
    return {
        async all() {
            const objects = await adapterCall(
                type ? ctx.storage.getForeignObjectsAsync(pattern, type as ioBroker.ObjectType, ctx.callOptions) : ctx.storage.getForeignObjectsAsync(pattern, ctx.callOptions),
                { filter: pattern },
            );
            return visibleObjects(ctx, objects ?? {});
        },
        async some(ids) {
            const objects = ((await adapterCall(ctx.storage.getForeignObjectsAsync(ids, ctx.callOptions))) ?? {}) as Record<string, ioBroker.Object | undefined>;
            const wanted: Record<string, ioBroker.Object> = {};
            for (const id of ids) {
                // js-controller answers a refused or missing id with an entry that is no object of this id
                const obj = objects[id];
                if (obj?._id === id && obj.type === (type || 'state')) {
                    wanted[id] = obj;
                }
            }
            return visibleObjects(ctx, wanted);
        },
    };
}
