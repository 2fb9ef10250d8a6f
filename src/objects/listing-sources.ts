import type { CallerData } from '../storage/data';
import type { ListingSource } from './listing-pages';

/*
 * Where the state and object listings come from, whole or for the ids of one page, with the
 * caller's read rights applied either way. Routes and listing commands share these.
 */

/** States matching `pattern`; the admin's whole listings come from the coherent listing cache. */
export function stateSource(data: CallerData, pattern: string): ListingSource {
    return {
        all: () => data.stateListing(pattern),
        async some(ids) {
            const states = (await data.getStates(ids)) ?? {};
            const present: Record<string, ioBroker.State> = {};
            for (const id of ids) {
                // a state deleted since the walk began is not listed, as a pattern would not list it
                if (states[id]) {
                    present[id] = states[id];
                }
            }
            return data.visibleStates(present, false);
        },
    };
}

/** Objects matching `pattern` of one type (js-controller lists state objects when none is given), each with its `enums`. */
export function objectSource(data: CallerData, pattern: string, type: string | undefined): ListingSource {
    return {
        async all() {
            return data.visibleObjects((await data.getObjects(pattern, type, { filter: pattern })) ?? {});
        },
        async some(ids) {
            const objects = ((await data.getObjects(ids)) ?? {}) as Record<string, ioBroker.Object | undefined>;
            const wanted: Record<string, ioBroker.Object> = {};
            for (const id of ids) {
                // js-controller answers a refused or missing id with an entry that is no object of this id
                const obj = objects[id];
                if (obj?._id === id && obj.type === (type || 'state')) {
                    wanted[id] = obj;
                }
            }
            return data.visibleObjects(wanted);
        },
    };
}
