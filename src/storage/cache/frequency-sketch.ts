/*
 * How often ids were asked for lately, in a fixed size (a count-min sketch of counters up to 15, as
 * TinyLFU uses it; 128 KiB for 2,000 entries): the read cache admits an id only when it is asked for more
 * often than the id it would evict. Counters halve after every `10 x capacity` counts, so old
 * popularity fades. Counts may be too high after a collision, never too low.
 */

const ROWS = 4;
const MAX_COUNT = 15;

export class FrequencySketch {
    private readonly table: Uint8Array;
    private readonly mask: number;
    private readonly sampleSize: number;
    private additions = 0;

    constructor(capacity: number) {
        let width = 1;
        // wide enough that ids asked for once rarely share all their counters with busier ones
        while (width < capacity * 16) {
            width *= 2;
        }
        this.table = new Uint8Array(width * ROWS);
        this.mask = width - 1;
        this.sampleSize = capacity * 10;
    }

    increment(key: string): void {
        const [h1, h2] = hashes(key);
        for (let row = 0; row < ROWS; row++) {
            const at = this.slot(row, h1, h2);
            if (this.table[at] < MAX_COUNT) {
                this.table[at]++;
            }
        }
        if (++this.additions >= this.sampleSize) {
            this.age();
        }
    }

    frequency(key: string): number {
        const [h1, h2] = hashes(key);
        let min = MAX_COUNT;
        for (let row = 0; row < ROWS; row++) {
            min = Math.min(min, this.table[this.slot(row, h1, h2)]);
        }
        return min;
    }

    clear(): void {
        this.table.fill(0);
        this.additions = 0;
    }

    private slot(row: number, h1: number, h2: number): number {
        return row * (this.mask + 1) + ((h1 + Math.imul(row, h2)) & this.mask);
    }

    private age(): void {
        for (let i = 0; i < this.table.length; i++) {
            this.table[i] >>= 1;
        }
        this.additions >>= 1;
    }
}

/** Two 32-bit hashes of the key (FNV-1a, and a multiplicative remix of it, odd so rows differ). */
function hashes(key: string): [number, number] {
    let h = 0x811c9dc5;
    for (let i = 0; i < key.length; i++) {
        h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
    }
    h >>>= 0;
    const h2 = (Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0) | 1;
    return [h, h2];
}
