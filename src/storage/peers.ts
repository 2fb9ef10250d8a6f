import type { ChangeFeed } from './change-feed';
import type { StoragePort } from './port';

const ALIVE = /^system\.adapter\.(rest-api\.\d+)\.alive$/;
const PATTERN = 'system.adapter.rest-api.*.alive';

/** The first version that shares sessions, hooks, damping and reads with other instances. */
const SHARING_MAJOR = 5;

/** Whether an instance object names a version that takes part in sharing (an older release does not). */
function shares(obj: ioBroker.Object | null | undefined): boolean {
    const major = Number(String((obj?.common as { version?: string } | undefined)?.version ?? '').split('.')[0]);
    return major >= SHARING_MAJOR;
}

/**
 * The other rest-api instances on this database that js-controller reports alive (its `alive` states,
 * kept with a TTL) and that share: a 4.x instance beside this one neither delivers hooks for it nor
 * answers its sessions, so it must not make this one pay for sharing.
 */
export interface Peers {
    /** True while at least one other instance is alive: caches then pay for reading other instances' writes. */
    any(): boolean;
    alive(): string[];
    start(): Promise<void>;
}

export function watchPeers(
    storage: Pick<StoragePort, 'getForeignStatesAsync' | 'getForeignObjectAsync'>,
    feed: ChangeFeed,
    namespace: string,
): Peers {
    const others = new Set<string>();
    /** The newest alive value per instance: a check that resolves after a newer note must not undo it. */
    const latest = new Map<string, boolean>();
    const note = async (id: string, state: ioBroker.State | null | undefined): Promise<void> => {
        const instance = ALIVE.exec(id)?.[1];
        if (!instance || instance === namespace) {
            return;
        }
        const alive = state?.val === true;
        latest.set(instance, alive);
        if (!alive) {
            // false, or gone when its TTL ran out: the instance died without saying so
            others.delete(instance);
            return;
        }
        // read at every heartbeat (about every 15 s): cheap, and an updated instance is seen
        const sharing = await storage.getForeignObjectAsync(`system.adapter.${instance}`).then(shares, () => false);
        if (latest.get(instance) === true) {
            if (sharing) {
                others.add(instance);
            } else {
                others.delete(instance);
            }
        }
    };
    return {
        any: () => others.size > 0,
        alive: () => [...others].sort(),
        async start() {
            // subscribed first, then read: a change between the two is not missed
            await feed.listen('state', PATTERN, (id, value) => void note(id, value as ioBroker.State | null));
            for (const [id, state] of Object.entries((await storage.getForeignStatesAsync(PATTERN)) ?? {})) {
                await note(id, state);
            }
        },
    };
}
