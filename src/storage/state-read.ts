import { isPattern } from '../access/patterns';
import { fromAdapterError } from './adapter-errors';
import type { StorageCalls } from './port';

type StateReads = Pick<StorageCalls, 'getForeignStateAsync' | 'getForeignStatesAsync'>;
type Read = Promise<ioBroker.State | null | undefined>;

/**
 * js-controller 7.2.3's `getForeignState` first reads the id's object from the objects DB (to see
 * whether it is an alias), for every id; its list read (`getForeignStates([ids])`, one `MGET`) reads
 * objects only for `alias.` ids. Aliases, and ids the single read refuses (empty, ending in `.`),
 * keep the single read, so they answer exactly as before.
 */
const needsSingleRead = (id: string): boolean => !id || id.startsWith('alias.') || id.endsWith('.') || isPattern(id);

type Found = Record<string, ioBroker.State | null>;

async function listRead(port: StateReads, ids: string[]): Promise<Found> {
    return (await port.getForeignStatesAsync(ids)) ?? {};
}

/** Own keys only: an id such as `constructor` must never answer what the result object inherits. */
const stateIn = (found: Found, id: string): ioBroker.State | null => (Object.hasOwn(found, id) ? found[id] : null);

/** One state with the adapter's rights, in one round trip to the states DB where it can be. */
export async function readStateOnce(port: StateReads, id: string): Read {
    return needsSingleRead(id) ? port.getForeignStateAsync(id) : stateIn(await listRead(port, [id]), id);
}

interface Waiting {
    id: string;
    resolve(state: ioBroker.State | null): void;
    reject(err: unknown): void;
}

/** Ids of one list read at most: a flood of misses goes out in several, side by side. */
const MAX_BATCH = 256;

/**
 * `readStateOnce` for many callers: a read that comes while another is on its way to the DB waits
 * for it and goes out with the others that came meanwhile, in one `MGET`. Each socket write costs
 * about as much CPU as the rest of a read (on a 2-core VM, 20-30 µs), so under load ten misses cost
 * one write instead of ten; a read alone goes out at once. If a list read fails, its ids are read
 * one by one, so one caller's failure is never another's; not when the DB is down (all would fail
 * alike, and twice the calls would meet a DB that is coming back).
 */
export function batchedStateReader(port: StateReads): (id: string) => Read {
    let inFlight = 0;
    let queue: Waiting[] = [];
    const flush = (): void => {
        const batch = queue;
        queue = [];
        send(batch);
    };
    const send = (batch: Waiting[]): void => {
        inFlight++;
        const ids = [...new Set(batch.map(w => w.id))];
        listRead(port, ids)
            .then(
                found => batch.forEach(w => w.resolve(stateIn(found, w.id))),
                err =>
                    batch.length === 1 || fromAdapterError(err).status === 503
                        ? batch.forEach(w => w.reject(err))
                        : batch.forEach(w =>
                              readStateOnce(port, w.id).then(state => w.resolve(state ?? null), w.reject),
                          ),
            )
            .finally(() => {
                inFlight--;
                if (queue.length) {
                    flush();
                }
            });
    };
    return id => {
        if (needsSingleRead(id)) {
            return port.getForeignStateAsync(id);
        }
        return new Promise((resolve, reject) => {
            const waiting = { id, resolve, reject };
            if (!inFlight) {
                send([waiting]);
                return;
            }
            queue.push(waiting);
            if (queue.length >= MAX_BATCH) {
                flush();
            }
        });
    };
}
