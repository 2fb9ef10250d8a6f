import type { Timers } from '../instance/timers';
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
 * How often the alive states are read again. An `alive` state expires 25 s after the last heartbeat of
 * its instance (js-controller's statistics interval plus 10 s); its expiry is announced only while
 * Redis has keyspace notifications on, which js-controller sets on its first connect alone and a
 * restarted Redis has lost. Reading what Redis holds finds a dead instance within 25 s + this.
 */
export const PEER_CHECK_MS = 10_000;

/**
 * The other rest-api instances on this database that js-controller reports alive (its `alive` states,
 * kept with a TTL) and that share: a 4.x instance beside this one neither delivers hooks for it nor
 * answers its sessions, so it must not make this one pay for sharing.
 */
export interface Peers {
    /** True while at least one other instance is alive: caches then pay for reading other instances' writes. */
    any(): boolean;
    alive(): string[];
    /** Calls `listener` whenever an instance starts or stops counting. */
    onChange(listener: () => void): void;
    start(): Promise<void>;
    /** Reads every alive state again: what Redis holds, whether or not its changes were announced. */
    refresh(): Promise<void>;
}

export function watchPeers(
    storage: Pick<StoragePort, 'getForeignStatesAsync' | 'getForeignObjectAsync'>,
    feed: ChangeFeed,
    namespace: string,
    timers?: Pick<Timers, 'setInterval'>,
): Peers {
    const others = new Set<string>();
    const listeners: Array<() => void> = [];
    const count = (instance: string, counts: boolean): void => {
        if (others.has(instance) !== counts) {
            if (counts) {
                others.add(instance);
            } else {
                others.delete(instance);
            }
            listeners.forEach(listener => listener());
        }
    };
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
            count(instance, false);
            return;
        }
        // read at every heartbeat (about every 15 s): cheap, and an updated instance is seen
        const sharing = await storage.getForeignObjectAsync(`system.adapter.${instance}`).then(shares, () => false);
        if (latest.get(instance) === true) {
            count(instance, sharing);
        }
    };
    const refresh = async (): Promise<void> => {
        const states = await storage.getForeignStatesAsync(PATTERN).catch(() => undefined);
        if (!states) {
            return; // the database is away: what is known stays until it answers again
        }
        // an instance whose state is gone is no longer in the answer at all
        const missing = [...others].filter(instance => !states[`system.adapter.${instance}.alive`]);
        for (const instance of missing) {
            await note(`system.adapter.${instance}.alive`, null);
        }
        for (const [id, state] of Object.entries(states)) {
            await note(id, state);
        }
    };
    return {
        any: () => others.size > 0,
        alive: () => [...others].sort(),
        onChange: listener => void listeners.push(listener),
        refresh,
        async start() {
            // subscribed first, then read: a change between the two is not missed
            await feed.listen('state', PATTERN, (id, value) => void note(id, value as ioBroker.State | null));
            await refresh();
            timers?.setInterval(() => void refresh(), PEER_CHECK_MS);
        },
    };
}
