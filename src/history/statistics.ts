/*
 * Statistics per calendar bucket, computed from the raw values the history instance returns, fed in
 * time order so a long range needs no more memory than its buckets. `change` is what a meter counted
 * in the bucket: the increase since the reading before it (also one before the range), where a
 * reading below the one before means the counter restarted from zero. The changes of all buckets
 * add up to the meter's total over the range.
 */
import { bucketStarts, type Period } from './calendar';

export const STATS = ['mean', 'min', 'max', 'sum', 'change', 'count'] as const;
export type Stat = (typeof STATS)[number];

export interface BucketRow {
    ts: number;
    /** The start of the next bucket. */
    end: number;
    mean?: number | null;
    min?: number | null;
    max?: number | null;
    sum?: number | null;
    change?: number | null;
    count?: number;
}

interface Acc {
    count: number;
    numbers: number;
    sum: number;
    min: number;
    max: number;
    change: number;
}

/** Booleans count as 1 and 0 (the share of readings that were true); text only counts. */
function numeric(val: unknown): number | undefined {
    if (typeof val === 'number') {
        return Number.isFinite(val) ? val : undefined;
    }
    return typeof val === 'boolean' ? Number(val) : undefined;
}

export class BucketStatistics {
    private readonly starts: number[];
    private readonly accs: Acc[];
    private index = 0;
    private previous: number | undefined;

    constructor(
        private readonly start: number,
        private readonly end: number,
        period: Period,
        zone: string,
        private readonly stats: readonly Stat[],
    ) {
        this.starts = bucketStarts(start, end, period, zone);
        this.accs = this.starts.map(() => ({ count: 0, numbers: 0, sum: 0, min: Infinity, max: -Infinity, change: 0 }));
        this.starts.push(end);
    }

    get buckets(): number {
        return this.accs.length;
    }

    /** One value, in time order; a value before the range start only sets the reading `change` counts from. */
    add(ts: number, val: unknown): void {
        const n = numeric(val);
        if (ts < this.start) {
            this.previous = n ?? this.previous;
            return;
        }
        if (ts >= this.end) {
            return;
        }
        while (ts >= this.starts[this.index + 1]) {
            this.index++;
        }
        const acc = this.accs[this.index];
        acc.count++;
        if (n === undefined) {
            return;
        }
        acc.numbers++;
        acc.sum += n;
        acc.min = Math.min(acc.min, n);
        acc.max = Math.max(acc.max, n);
        if (this.previous !== undefined) {
            acc.change += n >= this.previous ? n - this.previous : n;
        }
        this.previous = n;
    }

    rows(): BucketRow[] {
        return this.accs.map((acc, i) => {
            const row: BucketRow = { ts: this.starts[i], end: this.starts[i + 1] };
            const some = acc.numbers > 0;
            for (const stat of this.stats) {
                if (stat === 'count') {
                    row.count = acc.count;
                } else if (stat === 'mean') {
                    row.mean = some ? acc.sum / acc.numbers : null;
                } else if (stat === 'change') {
                    row.change = some ? acc.change : null;
                } else {
                    row[stat] = some ? acc[stat] : null;
                }
            }
            return row;
        });
    }
}
