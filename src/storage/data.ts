import { guardedStorage } from './guarded-storage';
import { seesAll, type Acl, type AclCache } from '../access/rules';
import {
    assertMayReadState,
    assertMayChangeHistory,
    assertMayReadHistory,
    assertMayWriteState,
    readableStateIds,
    visibleEnums,
    visibleMetaEntries,
    visibleObjects,
    visibleRows,
    visibleStates,
    withVisibleMembers,
} from '../access/read-checks';
import { assertMayRewriteSettings, assertMaySetHistorySettings } from '../access/history-rights';
import { adapterCall, fromAdapterError } from './adapter-errors';
import type { HistorySettingsCache } from './cache/history-settings';
import type { StoragePort } from './port';
import { objectsBelow } from './objects-below';
import { readStateOnce } from './state-read';
import {
    peekObject,
    peekState,
    readObject,
    readState,
    readStateOf,
    uncachable,
    type CachedReader,
} from './cache/cached-reads';
import type { CoherentCache } from './cache/coherent-cache';
import type { ListingCache, StateListing } from './cache/listing-cache';
import type { NameIndex } from './cache/name-index';

/*
 * The one door through which a request reaches js-controller's data. It is made per request for one
 * caller: it passes the caller's options on every call, writes through the guarded port (the write
 * policy), answers single reads from the coherent caches where their rules allow it, applies the
 * read checks to what it lists, and turns js-controller's failures into HttpErrors here, once.
 * `context` is what an error answer names besides the message (`{ id }`, `{ objectId, fileName }`).
 */

/** The parts behind the door, built once at start and shared by every request. */
export interface DataStores {
    /** The unchecked port: each caller gets it guarded by the write policy. */
    port: StoragePort;
    /** Repeated reads from memory, kept coherent by change notifications (src/storage/cache/coherent-cache.ts). */
    states: CoherentCache<ioBroker.State>;
    objects: CoherentCache<ioBroker.Object>;
    /** State listings of `prefix*` patterns for the admin. */
    listings: ListingCache;
    /** Every object with history settings, held between object changes (whose series a value joins). */
    historySettings: Pick<HistorySettingsCache, 'all'>;
    /** State names → ids, for routes that accept a name. */
    names: NameIndex;
    /** Each user's rights: the write policy's account rule compares them. */
    acls: AclCache;
}

export interface Caller {
    user: string;
    acl: Acl;
    /** onlyAllowWhenUserIsOwner: only the owner bits of a state's ACL count. */
    ownerOnly: boolean;
}

type Context = Record<string, unknown>;
type ViewRow = { id: string; value?: ioBroker.Object };
type View = { rows: ViewRow[] } & Record<string, unknown>;
type Options = { user: string; limitToOwnerRights?: boolean };

export class CallerData {
    private readonly port: StoragePort;
    private readonly reads: CachedReader;

    constructor(
        private readonly stores: DataStores,
        caller: Caller,
    ) {
        const { user, acl, ownerOnly } = caller;
        const port = guardedStorage(stores.port, acl, ownerOnly, {
            objectCache: stores.objects,
            acls: stores.acls,
            historySettings: stores.historySettings,
        });
        this.port = port;
        this.reads = {
            acl,
            ownerOnly,
            port,
            states: stores.states,
            objects: stores.objects,
            // a new object on every call: js-controller writes the caller's groups and ACL into the options it is given
            options: () => (ownerOnly ? { user, limitToOwnerRights: true } : { user }),
            objectOf: id => adapterCall(stores.objects.get(id), { id }),
            stateObjectsBetween: async (first, last) =>
                (await adapterCall(port.getObjectViewAsync('system', 'state', { startkey: first, endkey: last })))
                    ?.rows ?? [],
            customSettings: () => adapterCall(stores.historySettings.all()),
        };
    }

    private get options(): Options {
        return this.reads.options();
    }

    // ---- states ----

    /** A state as `getForeignState` with the caller's rights answers it, from the coherent cache where it may. */
    readState(id: string): Promise<ioBroker.State | null> {
        return readState(this.reads, id);
    }

    /** `readState` without waiting: undefined when the caches cannot answer now. */
    peekState(id: string): ioBroker.State | null | undefined {
        return peekState(this.reads, id);
    }

    /**
     * The state of `id` fetched from the cache while its object is read (one round trip instead of two),
     * to be handed to `readStateOf`; null where the caches leave `id` to js-controller.
     */
    earlyState(id: string): Promise<ioBroker.State | null> | null {
        if (uncachable(this.reads, id)) {
            return null;
        }
        // before the caller's rights are known: it may not make the cache hold and watch `id`
        const early = this.stores.states.get(id, { admit: false });
        early.catch(() => undefined);
        return early;
    }

    /** `readState` after the caller has read the state's object: only the state rule is left to check. */
    readStateOf(obj: ioBroker.Object, early: Promise<ioBroker.State | null>): Promise<ioBroker.State | null> {
        return readStateOf(this.reads, obj, early);
    }

    /** A state straight from js-controller, with the caller's rights. */
    getState(id: string, context: Context = {}): Promise<ioBroker.State | null | undefined> {
        return adapterCall(this.port.getForeignStateAsync(id, this.options), context);
    }

    /** States of a pattern or a list of ids, straight from js-controller (unfiltered: see `visibleStates`). */
    getStates(pattern: string | string[], context: Context = {}): Promise<Record<string, ioBroker.State>> {
        return adapterCall(this.port.getForeignStatesAsync(pattern as never, this.options), context);
    }

    /** The states of `pattern` the caller may read; the admin's whole listings from the coherent listing cache. */
    stateListing(pattern: string): StateListing | Promise<StateListing> {
        const context = { filter: pattern };
        if (seesAll(this.reads.acl) && !this.reads.ownerOnly) {
            return this.stores.listings.peek(pattern) ?? adapterCall(this.stores.listings.get(pattern), context);
        }
        return this.getStates(pattern, context).then(states =>
            visibleStates(this.reads, (states ?? {}) as StateListing, false),
        );
    }

    /** The states of `pattern` as the adapter lists them (a public scrape, of patterns the administrator chose). */
    adapterStateListing(pattern: string): Promise<StateListing> {
        return adapterCall(this.stores.listings.get(pattern));
    }

    /** A state with the adapter's rights, for what the caller does not read itself (an instance's `alive`). */
    adapterState(id: string, context: Context = {}): Promise<ioBroker.State | null | undefined> {
        return adapterCall(readStateOnce(this.stores.port, id), context);
    }

    setState(id: string, state: ioBroker.SettableState, context: Context = {}): Promise<unknown> {
        return adapterCall(this.port.setForeignStateAsync(id, state, this.options), context);
    }

    delState(id: string, context: Context = {}): Promise<void> {
        return adapterCall(this.port.delForeignStateAsync(id, this.options), context);
    }

    /**
     * The states of `pattern` the caller may read one by one, read with the adapter's rights: an event
     * stream needs only the read right, not the list right of a pattern listing, and shows exactly the
     * ids it would have delivered. A plain id is read alone (js-controller's pattern read finds none on Redis).
     */
    async readableStates(pattern: string): Promise<StateListing> {
        if (!pattern.includes('*')) {
            const state = await this.readState(pattern).catch(() => null);
            return state ? { [pattern]: state } : {};
        }
        if (seesAll(this.reads.acl) && !this.reads.ownerOnly) {
            return this.stateListing(pattern);
        }
        const states = await adapterCall(this.stores.port.getForeignStatesAsync(pattern), { pattern });
        return visibleStates(this.reads, (states ?? {}) as StateListing, false);
    }

    /**
     * The states of these state objects (id → object as the adapter sees it) the caller may read, the
     * others left out; read with the adapter's rights once checked (null: no value yet).
     */
    async readableStatesOf(objects: Record<string, ioBroker.Object>): Promise<Record<string, ioBroker.State | null>> {
        const ids = await readableStateIds(this.reads, objects);
        if (!ids.length) {
            return {};
        }
        const states = ((await adapterCall(this.stores.port.getForeignStatesAsync(ids))) ?? {}) as Record<
            string,
            ioBroker.State | null | undefined
        >;
        const found: Record<string, ioBroker.State | null> = {};
        for (const id of ids) {
            found[id] = states[id] ?? null;
        }
        return found;
    }

    // ---- objects ----

    /** Objects of every type with ids from `startkey` to `endkey`, read with the adapter's rights, as the caller may read them. */
    async readableObjectsBetween(
        startkey: string,
        endkey: string,
        context: Context = {},
    ): Promise<Record<string, ioBroker.Object>> {
        const list = await adapterCall(this.stores.port.getObjectListAsync({ startkey, endkey }), context);
        const found: Record<string, ioBroker.Object> = {};
        for (const row of list?.rows ?? []) {
            if (row.value) {
                found[row.id] = row.value;
            }
        }
        return visibleObjects(this.reads, found);
    }

    /**
     * An object as `getForeignObject` with the caller's rights answers it, from the coherent cache where
     * it may, an enum with only the members the caller may read; `whole` (to merge a write into) keeps them.
     * Shared with the cache: copy before changing it.
     */
    readObject(id: string, context: Context = { id }, whole = false): Promise<ioBroker.Object | null> {
        return readObject(this.reads, id, context, whole);
    }

    /** `readObject` without waiting: undefined when the cache cannot answer now. */
    peekObject(id: string, context: Context = { id }): ioBroker.Object | null | undefined {
        return peekObject(this.reads, id, context);
    }

    /** An object straight from js-controller with the caller's options, uncached; its getForeignObject checks no object ACL (`readObject` does). */
    getObject(id: string, context: Context = {}): Promise<ioBroker.Object | null | undefined> {
        return adapterCall(this.port.getForeignObjectAsync(id, this.options), context);
    }

    /** Objects of a pattern or a list of ids, optionally of one type, straight from js-controller (see `visibleObjects`). */
    getObjects(
        pattern: string | string[],
        type?: string,
        context: Context = {},
    ): Promise<Record<string, ioBroker.Object>> {
        const options = this.options;
        const objects = type
            ? this.port.getForeignObjectsAsync(pattern, type as ioBroker.ObjectType, options)
            : this.port.getForeignObjectsAsync(pattern, options);
        return adapterCall(objects as Promise<Record<string, ioBroker.Object>>, context);
    }

    /** The objects of one type below `prefix`, by id range (src/storage/objects-below.ts), with the caller's rights. */
    objectsBelow(prefix: string, type: ioBroker.ObjectType, context: Context = {}): Promise<ioBroker.Object[]> {
        return adapterCall(objectsBelow(this.port, prefix, type, this.options), context);
    }

    /** js-controller's object list (rows with `doc` when asked), with the caller's rights. */
    objectList(
        params: ioBroker.GetObjectListParams,
        context: Context = {},
    ): Promise<ioBroker.NonNullCallbackReturnTypeOf<ioBroker.GetObjectListCallback<ioBroker.Object>>> {
        return adapterCall(this.port.getObjectListAsync(params, this.options), context);
    }

    /** An object view with only the rows whose object the caller may read. */
    async objectView(
        design: string,
        search: string,
        params: Record<string, unknown>,
        context: Context = {},
    ): Promise<View> {
        const view = (await adapterCall(
            this.port.getObjectViewAsync(design as 'system', search as 'state', params as never, this.options),
            context,
        )) as unknown as View;
        return view ? { ...view, rows: await visibleRows(this.reads, view.rows) } : view;
    }

    /** Every enum by category, each with only the enums and members the caller may read. */
    async enums(context: Context = {}): Promise<Record<string, Record<string, ioBroker.Object>>> {
        // js-controller's view needs the object list right of the caller
        const categories = ((await adapterCall(this.port.getEnumsAsync('', this.options), context)) ?? {}) as Record<
            string,
            Record<string, ioBroker.Object>
        >;
        const visible: Record<string, Record<string, ioBroker.Object>> = {};
        for (const [category, enums] of Object.entries(categories)) {
            visible[category] = await visibleEnums(this.reads, enums);
        }
        return visible;
    }

    /** The state id whose object bears this name, if any. */
    idOfName(name: string): Promise<string | undefined> {
        return adapterCall(this.stores.names.lookup(name));
    }

    /** An object with the adapter's rights, for settings the caller does not read itself (an instance, `system.config`). */
    adapterObject(id: string, context: Context = {}): Promise<ioBroker.Object | null | undefined> {
        return adapterCall(this.stores.port.getForeignObjectAsync(id), context);
    }

    /** `adapterObject` from the coherent cache (names and units of states already checked). */
    cachedAdapterObject(id: string): Promise<ioBroker.Object | null> {
        return adapterCall(this.stores.objects.get(id), { id });
    }

    setObject(id: string, obj: ioBroker.SettableObject, context: Context = {}): Promise<unknown> {
        return adapterCall(this.port.setForeignObjectAsync(id, obj, this.options), context);
    }

    extendObject(id: string, obj: ioBroker.PartialObject, context: Context = {}): Promise<unknown> {
        return adapterCall(this.port.extendForeignObjectAsync(id, obj, this.options), context);
    }

    /** Deletes an object; `recursive` also everything below it. */
    delObject(id: string, recursive?: boolean, context: Context = {}): Promise<void> {
        const options = recursive === undefined ? this.options : { ...this.options, recursive };
        return adapterCall(this.port.delForeignObjectAsync(id, options), context);
    }

    setPassword(id: string, password: string, context: Context = {}): Promise<void> {
        return adapterCall(this.port.setPasswordAsync(id, password, this.options), context);
    }

    // ---- read checks, for what was read in another way ----

    /** A dictionary id → state without the states the caller may not read (`fromList`: a list of ids, refused whole). */
    visibleStates<T>(states: Record<string, T>, fromList: boolean): Promise<Record<string, T>> {
        return visibleStates(this.reads, states, fromList);
    }

    /** A dictionary id → object without the objects the caller may not read, enums without such members. */
    visibleObjects<T extends ioBroker.Object>(objects: Record<string, T>): Promise<Record<string, T>> {
        return visibleObjects(this.reads, objects);
    }

    /** An enum with only the members the caller may read; anything else as it is. */
    withVisibleMembers<T>(obj: T): Promise<T> {
        return withVisibleMembers(this.reads, obj);
    }

    /** Throws 403 unless the caller may read the state `id` (history, messages naming a state). */
    assertMayReadState(id: string): Promise<void> {
        return assertMayReadState(this.reads, id);
    }

    /** Throws unless the caller may read the stored history of the state `id` (read-checks.ts). */
    assertMayReadHistory(id: string): Promise<void> {
        return assertMayReadHistory(this.reads, id);
    }

    /** Throws 403 unless the caller may change the stored history of `id` and every series it reaches. */
    assertMayChangeHistory(id: string): Promise<void> {
        return assertMayChangeHistory(this.reads, id);
    }

    /** Throws 403 when history settings `after` of `id` reach a series the caller may not read and write. */
    assertMaySetHistorySettings(id: string, before: unknown, after: unknown): Promise<void> {
        return assertMaySetHistorySettings(this.reads, id, before, after);
    }

    /** Throws 403 unless the caller may write the object `id` (a history instance rewrites its settings). */
    assertMayRewriteSettings(id: string): Promise<void> {
        return assertMayRewriteSettings(this.reads, id);
    }

    /** Throws 403 unless the caller may write the state `id`. */
    assertMayWriteState(id: string): Promise<void> {
        return assertMayWriteState(this.reads, id);
    }

    // ---- files ----

    readDir(area: string, name: string, context: Context = {}): Promise<ioBroker.ReadDirResult[]> {
        return adapterCall(this.port.readDirAsync(area, name, this.options), context);
    }

    /** A top-level listing of the file storage (`area` empty) keeps only the meta objects the caller may read. */
    async readVisibleDir(area: string, name: string, context: Context = {}): Promise<ioBroker.ReadDirResult[]> {
        const entries = await this.readDir(area, name, context);
        return area ? entries : visibleMetaEntries(this.reads, entries);
    }

    readFile(area: string, name: string, context: Context = {}): Promise<{ file: string | Buffer; mimeType?: string }> {
        return adapterCall(this.port.readFileAsync(area, name, this.options), context);
    }

    writeFile(
        area: string,
        name: string,
        data: Buffer | string,
        extra: { mode?: number } = {},
        context: Context = {},
    ): Promise<void> {
        return adapterCall(this.port.writeFileAsync(area, name, data, { ...this.options, ...extra }), context);
    }

    unlink(area: string, name: string, context: Context = {}): Promise<unknown> {
        return adapterCall(this.port.unlinkAsync(area, name, this.options), context);
    }

    rename(area: string, oldName: string, newName: string, context: Context = {}): Promise<void> {
        return adapterCall(this.port.renameAsync(area, oldName, newName, this.options), context);
    }

    mkdir(area: string, name: string, context: Context = {}): Promise<void> {
        return adapterCall(this.port.mkdirAsync(area, name, this.options), context);
    }

    fileExists(area: string, name: string, context: Context = {}): Promise<boolean> {
        return adapterCall(this.port.fileExistsAsync(area, name, this.options), context);
    }

    chmodFile(area: string, name: string, mode: number, context: Context = {}): Promise<unknown> {
        return adapterCall(this.port.chmodFileAsync(area, name, { ...this.options, mode }), context);
    }

    chownFile(
        area: string,
        name: string,
        owner: { owner?: string; ownerGroup?: string },
        context: Context = {},
    ): Promise<unknown> {
        return adapterCall(this.port.chownFileAsync(area, name, { ...this.options, ...owner }), context);
    }

    // ---- messages and secrets ----

    /** A message to an instance; `callback` gets its answer (none: nobody waits for one). */
    sendTo(
        instance: string,
        command: string,
        message: unknown,
        callback?: (result: unknown) => void,
        options?: { timeout: number },
        context: Context = {},
    ): void {
        try {
            if (callback) {
                this.port.sendTo(
                    instance,
                    command,
                    message as ioBroker.MessagePayload,
                    result => callback(result),
                    options as never,
                );
            } else {
                this.port.sendTo(instance, command, message as ioBroker.MessagePayload);
            }
        } catch (err) {
            throw fromAdapterError(err, context);
        }
    }

    sendToHost(
        host: string,
        command: string,
        message: unknown,
        callback: (result: unknown) => void,
        context: Context = {},
    ): void {
        try {
            this.port.sendToHost(host, command, message as ioBroker.MessagePayload, result => callback(result));
        } catch (err) {
            throw fromAdapterError(err, context);
        }
    }

    encrypt(secret: string, text: string): string {
        return this.port.encrypt(secret, text);
    }

    decrypt(secret: string, text: string): string {
        return this.port.decrypt(secret, text);
    }
}
