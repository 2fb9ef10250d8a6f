import type { ChangeFeed } from './change-feed';
import type { StoragePort } from './port';

const ALIVE = /^system\.adapter\.(rest-api\.\d+)\.alive$/;
const PATTERN = 'system.adapter.rest-api.*.alive';

/** The other rest-api instances on this database that js-controller reports alive (its `alive` states, kept with a TTL). */
export interface Peers {
    /** True while at least one other instance is alive: caches then pay for reading other instances' writes. */
    any(): boolean;
    alive(): string[];
    start(): Promise<void>;
}

export function watchPeers(storage: Pick<StoragePort, 'getForeignStatesAsync'>, feed: ChangeFeed, namespace: string): Peers {
    const others = new Set<string>();
    const note = (id: string, state: ioBroker.State | null | undefined): void => {
        const instance = ALIVE.exec(id)?.[1];
        if (!instance || instance === namespace) {
            return;
        }
        if (state?.val === true) {
            others.add(instance);
        } else {
            // false, or gone when its TTL ran out: the instance died without saying so
            others.delete(instance);
        }
    };
    return {
        any: () => others.size > 0,
        alive: () => [...others].sort(),
        async start() {
            // subscribed first, then read: a change between the two is not missed
            await feed.listen('state', PATTERN, (id, value) => note(id, value as ioBroker.State | null));
            for (const [id, state] of Object.entries((await storage.getForeignStatesAsync(PATTERN)) ?? {})) {
                note(id, state);
            }
        },
    };
}
