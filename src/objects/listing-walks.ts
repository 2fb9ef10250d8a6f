import { randomBytes } from 'node:crypto';

/*
 * The ids of a paged walk, kept from its first page: later pages read only their own ids instead of
 * the whole listing again, so walking 50,000 states costs one full read plus one small read per page.
 * An id that existed for the whole walk is in the first page's list, so none is skipped; ids created
 * later may be missed, as the paging contract allows. A walk that is gone (expired, evicted,
 * restarted) is not an error: the page is then cut from a full read as before.
 */

const MAX_WALKS = 16;
/** Ids over all kept walks: about 4 MB of id strings at most. */
const MAX_IDS = 100_000;
const IDLE_MS = 5 * 60_000;

interface Walk {
    key: string;
    ids: string[];
    used: number;
}

export class ListingWalks {
    private readonly walks = new Map<string, Walk>();
    private idCount = 0;

    constructor(private readonly now: () => number = Date.now) {}

    /** Keeps the sorted ids of a listing for the walk `key` (who lists what); answers the walk's id. */
    start(key: string, sortedIds: string[]): string | undefined {
        if (sortedIds.length > MAX_IDS) {
            return undefined;
        }
        this.expire();
        while (this.walks.size >= MAX_WALKS || this.idCount + sortedIds.length > MAX_IDS) {
            // the least recently used walk goes first (a Map keeps insertion order, `get` re-inserts)
            this.drop(this.walks.keys().next().value as string);
        }
        const id = randomBytes(9).toString('base64url');
        this.walks.set(id, { key, ids: sortedIds, used: this.now() });
        this.idCount += sortedIds.length;
        return id;
    }

    /** The kept ids after `after`, at most `count`, and whether more follow; undefined when the walk is gone. */
    next(walkId: string, key: string, after: string, count: number): { ids: string[]; more: boolean } | undefined {
        const walk = this.walks.get(walkId);
        if (!walk || walk.key !== key || this.now() - walk.used > IDLE_MS) {
            return undefined;
        }
        walk.used = this.now();
        this.walks.delete(walkId);
        this.walks.set(walkId, walk);
        const from = firstAfter(walk.ids, after);
        const ids = walk.ids.slice(from, from + count);
        const more = from + count < walk.ids.length;
        if (!more) {
            // the last page: nothing will ask for this walk again
            this.drop(walkId);
        }
        return { ids, more };
    }

    get size(): number {
        return this.walks.size;
    }

    private expire(): void {
        for (const [id, walk] of this.walks) {
            if (this.now() - walk.used > IDLE_MS) {
                this.drop(id);
            }
        }
    }

    private drop(id: string): void {
        const walk = this.walks.get(id);
        if (walk) {
            this.idCount -= walk.ids.length;
            this.walks.delete(id);
        }
    }
}

/** Index of the first id greater than `after` in ascending `ids`. */
export function firstAfter(ids: string[], after: string): number {
    let low = 0;
    let high = ids.length;
    while (low < high) {
        const mid = (low + high) >>> 1;
        if (ids[mid] <= after) {
            low = mid + 1;
        } else {
            high = mid;
        }
    }
    return low;
}
