import type { CoherentCache } from './coherent-cache';
import type { ListingCache } from './listing-cache';

type AnyFn = (...args: any[]) => Promise<unknown>;

/**
 * Every handler and command writes through these adapter methods; wrapping them here tells the
 * caches about each write, so that a read after a write through this adapter sees that write.
 */
export function trackWrites(adapter: ioBroker.Adapter, states: CoherentCache<ioBroker.State>, objects: CoherentCache<ioBroker.Object>, listings: ListingCache): void {
    const target = adapter as unknown as Record<string, AnyFn>;
    const wrap = (name: string, after: (id: string, options: unknown) => void): void => {
        const original = target[name].bind(adapter);
        target[name] = async (id: string, ...rest: unknown[]) => {
            try {
                return await original(id, ...rest);
            } finally {
                after(String(id), rest.find(arg => typeof arg === 'object' && arg !== null && 'recursive' in arg));
            }
        };
    };
    const state = (id: string): void => {
        states.written(id);
        listings.written(id);
    };
    const object = (id: string): void => {
        objects.written(id);
        listings.written(id);
    };
    wrap('setForeignStateAsync', state);
    wrap('delForeignStateAsync', state);
    wrap('setForeignObjectAsync', object);
    wrap('extendForeignObjectAsync', object);
    wrap('delForeignObjectAsync', (id, options) => {
        if ((options as { recursive?: boolean } | undefined)?.recursive) {
            // children went too: cheaper to start over than to find them
            objects.clear();
            states.clear();
            listings.clear();
        } else {
            object(id);
        }
    });
}
