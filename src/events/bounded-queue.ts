/**
 * A queue that keeps at most `maxItems` entries (and, given a size function, at most `maxBytes`):
 * pushing onto a full queue drops the oldest entries and counts them, so the reader can be told
 * what it missed. An entry larger than `maxBytes` alone is dropped (and counted) as it comes. The one buffer behind polling sessions, URL hooks and event-stream replay.
 */
export class BoundedQueue<T> {
    private items: T[] = [];
    /** Index of the oldest entry: shifting moves it instead of copying the array. */
    private head = 0;
    private bytes = 0;
    private dropped = 0;

    constructor(
        private readonly maxItems: number,
        private readonly limitBytes?: { max: number; sizeOf(item: T): number },
        /** Told of every entry that had to make room. */
        private readonly onDrop?: (item: T) => void,
    ) {}

    get length(): number {
        return this.items.length - this.head;
    }

    push(item: T): void {
        this.items.push(item);
        this.bytes += this.limitBytes?.sizeOf(item) ?? 0;
        // an entry larger than the byte limit makes room down to itself and goes too: nothing holds it
        while (this.length > this.maxItems || (this.limitBytes && this.bytes > this.limitBytes.max)) {
            const oldest = this.shift()!;
            this.dropped++;
            this.onDrop?.(oldest);
        }
    }

    shift(): T | undefined {
        if (!this.length) {
            return undefined;
        }
        const item = this.items[this.head];
        this.items[this.head] = undefined as T;
        this.head++;
        this.bytes -= this.limitBytes?.sizeOf(item) ?? 0;
        if (this.head === this.items.length) {
            // emptied one by one (a poll at a time): start over instead of keeping a run of holes
            this.items.length = 0;
            this.head = 0;
        } else if (this.head > 1024 && this.head * 2 > this.items.length) {
            this.items = this.items.slice(this.head);
            this.head = 0;
        }
        return item;
    }

    /** Every entry, oldest first; the queue is empty afterwards. */
    takeAll(): T[] {
        const all = this.items.slice(this.head);
        this.items = [];
        this.head = 0;
        this.bytes = 0;
        return all;
    }

    /** Removes the entries `drop` picks, without counting them as dropped; how many went. */
    removeWhere(drop: (item: T) => boolean): number {
        const kept: T[] = [];
        let removed = 0;
        for (let i = this.head; i < this.items.length; i++) {
            const item = this.items[i];
            if (drop(item)) {
                removed++;
                this.bytes -= this.limitBytes?.sizeOf(item) ?? 0;
            } else {
                kept.push(item);
            }
        }
        this.items = kept;
        this.head = 0;
        return removed;
    }

    /**
     * The entries, oldest first, left in place.
     *
     * @yields {T} each entry
     */
    *values(): IterableIterator<T> {
        for (let i = this.head; i < this.items.length; i++) {
            yield this.items[i];
        }
    }

    /** Dropped entries not yet reported by takeDropped. */
    get unreportedDrops(): number {
        return this.dropped;
    }

    /** How many entries were dropped since the last call. */
    takeDropped(): number {
        const dropped = this.dropped;
        this.dropped = 0;
        return dropped;
    }
}
