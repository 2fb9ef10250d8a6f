import type { ChangeFeed } from '../storage/change-feed';
import type { StoredHook } from './hooks';
import type { StoragePort } from '../storage/port';
import { adminJsonState } from '../storage/admin-json-state';
import type { Peers } from '../storage/peers';

/** What the instances on one database tell each other about URL hooks. */
export interface HookStoreListener {
    /** Another instance's list of hooks changed (`ts`: the writer's time, to keep the newer of two reads). */
    list(namespace: string, hooks: StoredHook[], ts: number): void;
    /** Another instance's receivers confirmed these events (hook key -> event identity). */
    progress(namespace: string, confirmed: Record<string, string>): void;
    /** An instance came or went (src/storage/peers.ts, from js-controller's `alive` states). */
    alive(): void;
}

export interface HookStore {
    /** Every instance's list by namespace, this instance's too. */
    load(): Promise<Map<string, { hooks: StoredHook[]; ts: number }>>;
    save(hooks: StoredHook[]): Promise<void>;
    /** Only with other instances alive: the events this instance's receivers confirmed since the last call. */
    saveProgress(confirmed: Record<string, string>): Promise<void>;
    watch(listener: HookStoreListener): Promise<void>;
}

const LIST = /^(rest-api\.\d+)\.hooks$/;
const PROGRESS = /^(rest-api\.\d+)\.hookProgress$/;

function parsed<T>(state: ioBroker.State | null | undefined, fallback: T): T {
    try {
        return typeof state?.val === 'string' ? (JSON.parse(state.val) as T) : fallback;
    } catch {
        return fallback;
    }
}

/**
 * Each instance writes its hooks to its own state `<namespace>.hooks` and what its receivers confirmed
 * to `<namespace>.hookProgress`, and reads every instance's: one writer per state, so no write can
 * undo another's. Both hold URLs and secrets: readable by administrators only.
 */
export function stateHookStore(
    storage: StoragePort,
    namespace: string,
    feed?: ChangeFeed,
    peers?: Pick<Peers, 'onChange'>,
): HookStore {
    const writers = new Map<string, (value: unknown) => Promise<void>>();
    const write = (id: string, name: string, value: unknown): Promise<void> => {
        let writer = writers.get(id);
        if (!writer) {
            writer = adminJsonState(storage, id, name);
            writers.set(id, writer);
        }
        return writer(value);
    };
    return {
        async load() {
            const lists = new Map<string, { hooks: StoredHook[]; ts: number }>();
            const states = feed
                ? ((await storage.getForeignStatesAsync('rest-api.*.hooks').catch(() => null)) ?? {})
                : {};
            for (const [id, state] of Object.entries(states)) {
                const other = LIST.exec(id)?.[1];
                if (other && other !== namespace) {
                    lists.set(other, { hooks: parsed<StoredHook[]>(state, []), ts: state?.ts ?? 0 });
                }
            }
            // inside the web adapter the own list may sit outside the pattern's reach: read by its id
            const own = await storage.getForeignStateAsync(`${namespace}.hooks`).catch(() => null);
            lists.set(namespace, { hooks: parsed<StoredHook[]>(own, []), ts: own?.ts ?? 0 });
            return lists;
        },
        save: hooks => write(`${namespace}.hooks`, 'URL hook subscriptions', hooks),
        saveProgress: confirmed =>
            write(`${namespace}.hookProgress`, 'URL hook deliveries confirmed, for the other instances', confirmed),
        async watch(listener) {
            if (!feed) {
                return;
            }
            await feed.listen('state', 'rest-api.*.hooks', (id, state) => {
                const other = LIST.exec(id)?.[1];
                if (other && other !== namespace) {
                    // gone (deleted with its instance): an empty list, newer than anything read before
                    listener.list(
                        other,
                        parsed<StoredHook[]>(state as ioBroker.State | null, []),
                        (state as ioBroker.State | null)?.ts ?? Date.now(),
                    );
                }
            });
            await feed.listen('state', 'rest-api.*.hookProgress', (id, state) => {
                const other = PROGRESS.exec(id)?.[1];
                if (other && other !== namespace) {
                    listener.progress(other, parsed<Record<string, string>>(state as ioBroker.State | null, {}));
                }
            });
            // from the peers, which also notice an instance whose death Redis did not announce
            peers?.onChange(() => setImmediate(() => listener.alive()));
        },
    };
}
