import { isPattern } from '../access/patterns';
import type { StorageCalls } from './port';

type StateReads = Pick<StorageCalls, 'getForeignStateAsync' | 'getForeignStatesAsync'>;

/**
 * One state with the adapter's rights, in one round trip to the states DB where it can be.
 * js-controller 7.2.3's `getForeignState` first reads the id's object from the objects DB (to see
 * whether it is an alias), for every id; its list read (`getForeignStates([id])`, one `MGET`) reads
 * the object only for `alias.` ids. Aliases, and ids the single read refuses (empty, ending in `.`), keep
 * the single read, so they answer exactly as before.
 */
export async function readStateOnce(port: StateReads, id: string): Promise<ioBroker.State | null | undefined> {
    if (!id || id.startsWith('alias.') || id.endsWith('.') || isPattern(id)) {
        return port.getForeignStateAsync(id);
    }
    const states = (await port.getForeignStatesAsync([id] as never)) as Record<string, ioBroker.State | null> | null | undefined;
    return states?.[id] ?? null;
}
