import { setImmediate as nextTurn } from 'node:timers/promises';
import { connectionCheck } from './connection-check';
import type { ChangeFeed } from '../change-feed';

export type StateListing = Record<string, ioBroker.State | null>;

export interface ListingSource {
    feed: ChangeFeed;
    /** The listing as js-controller answers `getForeignStates(pattern)` for the admin. */
    read(pattern: string): Promise<StateListing>;
    /** Resolves once the state and object notifications published before the call were handled. */
    barrier(): Promise<void>;
    connected(): boolean;
    /** True while other instances share the database: hits wait for a barrier (see CacheSource.shared). */
    shared?(): boolean;
}

interface Listing {
    prefix: string;
    states: StateListing | null;
    /** Counts notifications, to see whether one arrived while the listing was read. */
    seq: number;
    releases: Array<() => Promise<void>>;
}

/** Listings kept; the least recently used leave first. A bigger listing is not kept at all. */
const MAX_LISTINGS = 20;
const MAX_STATES = 5000;

/**
 * Whether `getForeignStates(pattern)` is a plain id-prefix range whose answer this cache can keep:
 * one trailing `*` and no aliases (their values come from other states).
 */
export function listablePrefix(pattern: string): string | undefined {
    const prefix = pattern.slice(0, -1);
    if (
        !pattern.endsWith('*') ||
        prefix.includes('*') ||
        !prefix ||
        'alias.'.startsWith(prefix) ||
        prefix.startsWith('alias.')
    ) {
        return undefined;
    }
    return prefix;
}

/**
 * Repeated state listings of one pattern (`GET /v1/states?filter=`) answered from memory, by the
 * rules of CoherentCache: kept only while js-controller's notifications for the pattern flow, filled
 * only when no notification arrived during the read, values updated by state notifications, and the
 * whole listing dropped when an object in the range changes (membership), when this adapter writes
 * in the range, or while the storage connection is down.
 */
export class ListingCache {
    private readonly listings = new Map<string, Listing>();
    private readonly usable = connectionCheck(
        () => this.source.connected(),
        () => this.clear(),
    );

    constructor(private readonly source: ListingSource) {}

    /** The kept listing, or undefined when it must be read from js-controller. */
    peek(pattern: string): StateListing | undefined {
        return this.source.shared?.() ? undefined : this.served(pattern);
    }

    private served(pattern: string): StateListing | undefined {
        const listing = this.listings.get(pattern);
        if (!listing?.states || !this.usable()) {
            return undefined;
        }
        this.listings.delete(pattern);
        this.listings.set(pattern, listing);
        return listing.states;
    }

    async get(pattern: string): Promise<StateListing> {
        if (this.source.shared?.()) {
            await this.source.barrier();
        }
        const hit = this.served(pattern);
        if (hit) {
            return hit;
        }
        const prefix = listablePrefix(pattern);
        if (!prefix || this.listings.has(pattern) || !this.usable()) {
            return this.source.read(pattern);
        }
        return this.fill(pattern, prefix);
    }

    /** This adapter wrote or deleted `id`: listings that contain it are read again. */
    written(id: string): void {
        for (const [pattern, listing] of this.listings) {
            if (id.startsWith(listing.prefix)) {
                this.drop(pattern);
            }
        }
    }

    clear(): void {
        for (const pattern of [...this.listings.keys()]) {
            this.drop(pattern);
        }
    }

    private async fill(pattern: string, prefix: string): Promise<StateListing> {
        const listing: Listing = { prefix, states: null, seq: 0, releases: [] };
        this.listings.set(pattern, listing);
        if (this.listings.size > MAX_LISTINGS) {
            this.drop(this.listings.keys().next().value!);
        }
        const current = (): boolean => this.listings.get(pattern) === listing;
        const keep = (release: () => Promise<void>): void => {
            if (current()) {
                listing.releases.push(release);
            } else {
                void release().catch(() => undefined);
            }
        };
        try {
            keep(
                await this.source.feed.listen('state', pattern, (id, state) => {
                    listing.seq++;
                    if (listing.states && id in listing.states) {
                        listing.states[id] = (state as ioBroker.State | null | undefined) ?? null;
                    }
                }),
            );
            keep(
                await this.source.feed.listen('object', pattern, () => {
                    listing.seq++;
                    if (listing.states && current()) {
                        // a state object came, went or changed: which ids belong is for js-controller to say
                        this.drop(pattern);
                    }
                }),
            );
        } catch {
            if (current()) {
                this.drop(pattern);
            }
            return this.source.read(pattern);
        }
        const seq = listing.seq;
        const states = await this.source.read(pattern).catch(err => {
            if (current()) {
                this.drop(pattern);
            }
            throw err;
        });
        void this.settle(pattern, listing, seq, states);
        return states;
    }

    /** Keeps what was read once the notifications sent meanwhile are in, if none of them touched it. */
    private async settle(pattern: string, listing: Listing, seq: number, states: StateListing): Promise<void> {
        try {
            await this.source.barrier();
            await nextTurn();
        } catch {
            if (this.listings.get(pattern) === listing) {
                this.drop(pattern);
            }
            return;
        }
        if (this.listings.get(pattern) !== listing) {
            return;
        }
        if (listing.seq !== seq || Object.keys(states).length > MAX_STATES) {
            this.drop(pattern);
            return;
        }
        // a copy: the answer already given must not change under its reader
        listing.states = { ...states };
    }

    private drop(pattern: string): void {
        const listing = this.listings.get(pattern);
        if (!listing) {
            return;
        }
        this.listings.delete(pattern);
        listing.states = null;
        for (const release of listing.releases) {
            void release().catch(() => undefined);
        }
    }
}
