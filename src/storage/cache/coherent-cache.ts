import { setImmediate as nextTurn } from 'node:timers/promises';
import { connectionCheck } from './connection-check';
import { FrequencySketch } from './frequency-sketch';
import type { ChangeFeed, ChangeKind } from '../change-feed';

export interface CacheSource<T> {
    kind: ChangeKind;
    feed: ChangeFeed;
    /** Reads one record from js-controller, as the adapter itself (no user rights). */
    read(id: string): Promise<T | null | undefined>;
    /**
     * Resolves once every change notification published before the call has been handled: a
     * subscribe on the notification connection, whose answer comes after the messages before it.
     */
    barrier(): Promise<void>;
    /** False while js-controller's storage connection is down. */
    connected(): boolean;
    /**
     * True while other instances share the database: they write without this cache hearing first, so
     * every hit waits for a barrier (one per turn for all hits) and then shows their answered writes.
     */
    shared?(): boolean;
    /** Records kept at most (default 2,000); the least recently used ones leave first. */
    maxEntries?: number;
    /** Their size at most, counted as JSON text (default 8 MB); the least recently used ones leave first. */
    maxBytes?: number;
    /**
     * One subscription to every id of the kind instead of one per cached id: for objects, which
     * change rarely, so a fill costs a read and a barrier and an eviction nothing.
     */
    watchAll?: boolean;
}

interface Entry<T> {
    id: string;
    value: T | null;
    /** Serve only when no fill or own write is still unconfirmed. */
    unsettled: number;
    /** Counts change notifications, to see whether one arrived while a read or write was under way. */
    seq: number;
    /** Own writes not yet confirmed: the next read goes to the DB and settles the entry again. */
    dirty: number;
    release: () => Promise<void>;
    /** The value's size as JSON text, counted against `maxBytes`. */
    bytes: number;
    /** Reads that came while the entry was being settled: they wait for it instead of reading past it. */
    waiters: Array<() => void>;
    /** `uses` when it was last moved to the recent end of the entries. */
    movedAt: number;
    /** Change notifications since it was last served from memory (see `UNREAD_CHANGES`). */
    unread: number;
}

const DEFAULT_MAX_ENTRIES = 2000;
const DEFAULT_MAX_BYTES = 8 * 1024 * 1024;
/**
 * An entry with its own subscription that changed more often than this since it was last served is
 * dropped: each notification costs this process and the DB about what the read it might save costs
 * (js-controller parses, and logs at silly level, every message), so a state written more often
 * than read, by this adapter or another, is cheaper read from the DB. It may come back after `COOLING_MISSES`.
 */
const UNREAD_CHANGES = 8;
/**
 * Misses an id dropped for unread changes takes before it may fill an entry again: else two reads
 * after every nine changes would make it subscribe and unsubscribe again and again.
 */
const COOLING_MISSES = UNREAD_CHANGES;

/**
 * Repeated reads of one state or object answered from memory, kept coherent by js-controller's own
 * change notifications: an id is cached only while subscribed, a value is served only once the
 * notification connection has caught up with it (so reads never go back in time), writes through
 * this adapter are read back from the DB until their notification arrived, and everything is dropped
 * while the storage connection is down.
 */
export class CoherentCache<T> {
    private readonly entries = new Map<string, Entry<T>>();
    /**
     * Admission: a first miss costs one read, as without a cache; an id fills an entry (subscribe,
     * read, barrier) only once it was asked for twice lately, and when the cache is full only if it
     * is asked for more often than the entry it would evict. Random reads over more ids than fit
     * never pay for subscriptions they cannot use, and do not push out what is really hot.
     */
    private readonly candidates = new Set<string>();
    /** Ids dropped for unread changes, with the misses each must still take before it is admitted again; at most `maxEntries`. */
    private readonly cooling = new Map<string, number>();
    private readonly asked: FrequencySketch;
    private readonly maxEntries: number;
    private readonly maxBytes: number;
    private bytes = 0;
    /** Hits so far: an entry's `movedAt` says how many hits ago it was last moved to the recent end. */
    private uses = 0;
    /** With `watchAll`: the one subscription, confirmed (or failed) once. */
    private watching: Promise<unknown> | null = null;
    private readonly usable = connectionCheck(
        () => this.source.connected(),
        () => this.clear(),
    );

    constructor(private readonly source: CacheSource<T>) {
        this.maxEntries = source.maxEntries ?? DEFAULT_MAX_ENTRIES;
        this.maxBytes = source.maxBytes ?? DEFAULT_MAX_BYTES;
        this.asked = new FrequencySketch(this.maxEntries);
    }

    /**
     * The cached value when it can be served now (null: known not to exist), undefined on a miss.
     * Lets hot paths answer without a promise; `get` fills the cache on a miss.
     */
    peek(id: string): T | null | undefined {
        return this.source.shared?.() ? undefined : this.served(id);
    }

    private served(id: string): T | null | undefined {
        const entry = this.servable(this.entries.get(id));
        if (entry) {
            this.used(entry);
        }
        return entry?.value;
    }

    /** The entry when its value can be served now; nothing counted. */
    private servable(entry: Entry<T> | undefined): Entry<T> | undefined {
        return !entry || entry.unsettled || entry.dirty || !this.usable() ? undefined : entry;
    }

    /** A hit: the entry counts as read and as recently used. */
    private used(entry: Entry<T>): void {
        // most recently used last, so eviction takes the oldest; moved only when it has fallen into the
        // older half, since moving costs the Map a delete and an insert on every hit
        const now = ++this.uses;
        if (now - entry.movedAt > this.maxEntries / 2) {
            entry.movedAt = now;
            this.entries.delete(entry.id);
            this.entries.set(entry.id, entry);
        }
        entry.unread = 0;
        this.asked.increment(entry.id);
    }

    /**
     * `admit: false` for a read made before the caller's rights are checked (one made beside the
     * object read): it fills no entry and a hit counts nothing; `admitAsked` counts the ask once the
     * caller may read `id`.
     */
    async get(id: string, { admit = true }: { admit?: boolean } = {}): Promise<T | null> {
        if (this.source.shared?.()) {
            await this.source.barrier();
        }
        const hit = admit ? this.served(id) : this.servable(this.entries.get(id))?.value;
        if (hit !== undefined) {
            return hit;
        }
        if (!this.usable()) {
            return (await this.source.read(id)) ?? null;
        }
        const entry = this.entries.get(id);
        if (entry?.unsettled) {
            // a read of its own could see a newer value than the one being settled, and the next request
            // would then get the older one from memory: wait for the entry instead (reads never go back);
            // the retry counts the ask
            await new Promise<void>(resolve => entry.waiters.push(resolve));
            return this.get(id, { admit });
        }
        if (entry && admit) {
            // asked for like a hit: an entry being refreshed must not look colder than it is
            this.asked.increment(id);
        }
        const seq = entry?.seq ?? 0;
        const fresh = this.source.read(id);
        if (!entry && admit && this.admit(id)) {
            void this.fill(id, fresh);
        } else if (entry && entry.dirty && !entry.unsettled) {
            void this.refresh(id, entry, seq, fresh);
        }
        return (await fresh) ?? null;
    }

    /**
     * The ask of a `get(id, { admit: false })`, counted once the caller turned out to be allowed to read
     * `id`, as `get` counts its own: a hit; an entry not servable (its read went to the DB) only asked
     * for; a miss.
     */
    admitAsked(id: string): void {
        const entry = this.entries.get(id);
        if (!entry) {
            if (this.usable() && this.admit(id)) {
                void this.fill(id, Promise.resolve(undefined));
            }
        } else if (this.servable(entry)) {
            this.used(entry);
        } else {
            this.asked.increment(id);
        }
    }

    /**
     * Call after this adapter wrote or deleted `id`: its next read must show that write. That read
     * goes to the DB and settles the entry again, so a run of writes costs no extra round trips.
     */
    written(id: string): void {
        const entry = this.entries.get(id);
        if (entry) {
            entry.dirty++;
        }
    }

    /** Drops everything, e.g. when the storage connection was lost; later reads go to the DB. */
    clear(): void {
        const all = [...this.entries.values()];
        this.entries.clear();
        this.bytes = 0;
        this.candidates.clear();
        this.cooling.clear();
        this.asked.clear();
        for (const entry of all) {
            void entry.release();
            this.wake(entry, true);
        }
    }

    get size(): number {
        return this.entries.size;
    }

    /**
     * Counts the miss; true on the second miss of `id` while it is remembered, and, once the cache is
     * full, only if `id` was asked for more often lately than the entry it would evict.
     */
    private admit(id: string): boolean {
        this.asked.increment(id);
        const cooling = this.cooling.get(id);
        if (cooling !== undefined) {
            if (cooling > 1) {
                this.cooling.set(id, cooling - 1);
                return false;
            }
            this.cooling.delete(id);
        }
        if (!this.candidates.delete(id)) {
            // as many as fit in the cache, the oldest forgotten first: an id that comes back only after more others than that is not hot
            if (this.candidates.size >= this.maxEntries) {
                this.candidates.delete(this.candidates.values().next().value!);
            }
            this.candidates.add(id);
            return false;
        }
        if (this.entries.size < this.maxEntries) {
            return true;
        }
        return this.asked.frequency(id) > this.asked.frequency(this.entries.keys().next().value!) + 1;
    }

    private async fill(id: string, fresh: Promise<T | null | undefined>): Promise<void> {
        const entry: Entry<T> = {
            id,
            value: null,
            unsettled: 1,
            seq: 0,
            dirty: 0,
            release: async () => undefined,
            bytes: 0,
            waiters: [],
            movedAt: this.uses,
            unread: 0,
        };
        this.entries.set(id, entry);
        if (this.entries.size > this.maxEntries) {
            this.drop(this.entries.keys().next().value!);
        }
        try {
            if (this.source.watchAll) {
                await this.watchAll();
            } else {
                entry.release = await this.source.feed.listen(this.source.kind, id, (_id, value) =>
                    this.changed(entry, value),
                );
                if (this.entries.get(id) !== entry) {
                    // dropped (evicted, cleared) while subscribing: its release ran before it was known
                    await entry.release();
                    return;
                }
            }
            // only reads made after the subscription was confirmed can be kept up to date
            const seq = entry.seq;
            const value = await this.source.read(id);
            await this.settle(id, entry, seq, value ?? null);
        } catch {
            this.dropEntry(entry);
        }
        void fresh.catch(() => undefined);
    }

    private changed(entry: Entry<T>, value: unknown): void {
        entry.seq++;
        if (this.entries.get(entry.id) !== entry) {
            return;
        }
        if (!this.source.watchAll && ++entry.unread > UNREAD_CHANGES) {
            this.drop(entry.id);
            this.cool(entry.id);
            return;
        }
        this.assign(entry, (value as T | null | undefined) ?? null);
    }

    private cool(id: string): void {
        if (this.cooling.size >= this.maxEntries) {
            this.cooling.delete(this.cooling.keys().next().value!);
        }
        this.cooling.set(id, COOLING_MISSES);
    }

    /** Subscribes once to every id; a failed subscription is tried again by the next fill. */
    private watchAll(): Promise<unknown> {
        this.watching ??= this.source.feed
            .listen(this.source.kind, '*', (id, value) => {
                const entry = this.entries.get(id);
                if (entry) {
                    this.changed(entry, value);
                }
            })
            .catch(err => {
                this.watching = null;
                throw err;
            });
        return this.watching;
    }

    /** A read made after own writes or newer reads (counted in `dirty`) confirms them once it has settled. */
    private async refresh(
        id: string,
        entry: Entry<T>,
        seq: number,
        fresh: Promise<T | null | undefined>,
    ): Promise<void> {
        const confirms = entry.dirty;
        entry.unsettled++;
        let value: T | null;
        try {
            value = (await fresh) ?? null;
        } catch {
            entry.unsettled--;
            this.wake(entry);
            return;
        }
        await this.settle(id, entry, seq, value, confirms);
    }

    /**
     * Waits until the notifications published before now were handled. If one arrived since `seq`
     * (taken before the read or write began), the latest notification is the newest value;
     * otherwise the value read. The caller has counted the entry as unsettled; `confirms` own writes
     * are confirmed in the same step, before any waiting read goes on (or it would refresh them again).
     */
    private async settle(id: string, entry: Entry<T>, seq: number, read: T | null, confirms = 0): Promise<void> {
        try {
            await this.source.barrier();
            await nextTurn();
        } catch {
            this.dropEntry(entry);
            return;
        }
        entry.unsettled--;
        entry.dirty -= confirms;
        if (this.entries.get(id) === entry && entry.seq === seq) {
            this.assign(entry, read);
        }
        this.wake(entry);
    }

    /** Sets the value and counts its size; the oldest entries leave while the cache is over its byte limit. */
    private assign(entry: Entry<T>, value: T | null): void {
        entry.value = value;
        const bytes = value === null ? 0 : JSON.stringify(value).length;
        this.bytes += bytes - entry.bytes;
        entry.bytes = bytes;
        if (bytes > this.maxBytes / 4) {
            // one value that large would push out most of the cache: it is read from the DB instead
            this.dropEntry(entry);
            return;
        }
        while (this.bytes > this.maxBytes && this.entries.size > 1) {
            this.drop(this.entries.keys().next().value!);
        }
    }

    /** Lets the reads that waited for the entry go on once nothing is being settled, or (`gone`) it was dropped. */
    private wake(entry: Entry<T>, gone = false): void {
        if (entry.unsettled && !gone) {
            return;
        }
        entry.waiters.splice(0).forEach(resume => resume());
    }

    /** Drops `entry` only if it is still the one cached for its id (a newer fill may have replaced it). */
    private dropEntry(entry: Entry<T>): void {
        if (this.entries.get(entry.id) === entry) {
            this.drop(entry.id);
        } else {
            this.wake(entry, true);
        }
    }

    private drop(id: string): void {
        const entry = this.entries.get(id);
        if (entry) {
            this.entries.delete(id);
            this.bytes -= entry.bytes;
            void entry.release();
            this.wake(entry, true);
        }
    }
}
