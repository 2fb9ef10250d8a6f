/*
 * V8 grows each semi-space of its young generation up to 16 MB under load and keeps it: about 32 MB
 * of RSS for an adapter idle again, and on a heap limited by --max-old-space-size (a small board) a
 * young generation the old one has no room to take in, so V8 makes every collection a full one.
 * js-controller passes io-package.json's Node flags only outside compact mode, and the repository
 * checker wants none: the adapter bounds its young generation itself, at run time. The size flags
 * are fixed once the heap exists; the growth factor is read at each growth. It is 2 (V8's own) while
 * a doubling stays within the cap and 1 (no growth) at the cap, set after each collection is reported,
 * a turn of the event loop later. Module loading at start is one long turn in which V8 would double
 * again and again: it runs with 1, the semi-space grows only once the event loop turns. V8 of Node 24
 * and later no longer follows the growth factor set at run time (measured): there it changes nothing.
 */
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, getHeapStatistics, setFlagsFromString } from 'node:v8';

const MB = 1024 * 1024;

/** What the bound reads and sets of the process's V8 heap (a stand-in in tests). */
export interface YoungGenerationHeap {
    /** Bytes one semi-space holds now. */
    semiSpace(): number;
    /** V8's limit of the whole heap in bytes (old generation plus three semi-spaces). */
    heapSizeLimit(): number;
    setGrowthFactor(factor: number): void;
    /** Calls `listener` after each collection; returns the stop. */
    afterCollections(listener: () => void): () => void;
}

/**
 * The largest semi-space in bytes: 4 MB (about 0.92 of 16 MB's throughput in earlier runs, 15 MB less
 * idle RSS), 2 MB on a heap limited to about 64 MB or less, 1 MB below 32: a collection of the young
 * generation must fit into what the old one has left. V8 grows by doubling from 1 MB: powers of two.
 */
export function semiSpaceCap(heapSizeLimit: number): number {
    const cap = heapSizeLimit / 32;
    return cap >= 4 * MB ? 4 * MB : cap >= 2 * MB ? 2 * MB : 1 * MB;
}

/** V8's own growth factor: a semi-space grows by doubling. */
const DOUBLING = 2;

/**
 * Keeps the young generation at or below semiSpaceCap from now on; returns the stop. `turned` calls
 * back once the event loop has turned (the start's module loading is over).
 */
export function boundYoungGeneration(
    heap: YoungGenerationHeap = processHeap(),
    turned: (then: () => void) => void = then => setImmediate(then),
): () => void {
    const cap = semiSpaceCap(heap.heapSizeLimit());
    let factor = 1;
    heap.setGrowthFactor(factor);
    const adjust = (): void => {
        // a little slack: V8 rounds a semi-space to its pages
        const wanted = heap.semiSpace() * DOUBLING <= cap * 1.05 ? DOUBLING : 1;
        if (wanted !== factor) {
            factor = wanted;
            heap.setGrowthFactor(factor);
        }
    };
    let stopped = false;
    let stop = (): void => {
        stopped = true;
    };
    turned(() => {
        if (!stopped) {
            adjust();
            stop = heap.afterCollections(adjust);
        }
    });
    return () => stop();
}

function processHeap(): YoungGenerationHeap {
    return {
        semiSpace: () => {
            // used and available: what the semi-space allocating now holds (space_size also counts the other)
            const space = getHeapSpaceStatistics().find(({ space_name }) => space_name === 'new_space');
            return space ? space.space_used_size + space.space_available_size : 0;
        },
        heapSizeLimit: () => getHeapStatistics().heap_size_limit,
        setGrowthFactor: factor => setFlagsFromString(`--semi-space-growth-factor=${factor}`),
        afterCollections(listener) {
            const observer = new PerformanceObserver(() => listener());
            observer.observe({ entryTypes: ['gc'] });
            return () => observer.disconnect();
        },
    };
}
