import type { CoherentCache } from './coherent-cache';

type AnyFn = (...args: any[]) => Promise<unknown>;

/**
 * Every handler and command writes through these adapter methods; wrapping them here tells the
 * caches about each write, so that a read after a write through this adapter sees that write.
 */
export function trackWrites(adapter: ioBroker.Adapter, states: CoherentCache<ioBroker.State>, objects: CoherentCache<ioBroker.Object>): void {
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
    wrap('setForeignStateAsync', id => states.written(id));
    wrap('delForeignStateAsync', id => states.written(id));
    wrap('setForeignObjectAsync', id => objects.written(id));
    wrap('extendForeignObjectAsync', id => objects.written(id));
    wrap('delForeignObjectAsync', (id, options) => {
        if ((options as { recursive?: boolean } | undefined)?.recursive) {
            // children went too: cheaper to start over than to find them
            objects.clear();
            states.clear();
        } else {
            objects.written(id);
        }
    });
}
