/*
 * Preloaded into an adapter by the heap part (`--require build/bench/gc-meter.js`): sums the main thread's
 * GC pauses and, on SIGUSR2, writes them with the heap's figures to <tmpdir>/rest-api-gc-<pid>.json.
 * A signal and a file, since js-controller's adapter has no channel of its own to the bench.
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, getHeapStatistics } from 'node:v8';

export interface GcFigures {
    /** Main-thread GC pauses since the start, in ms. */
    gcMs: number;
    gcCount: number;
    /** Milliseconds since the process started (performance.now()). */
    atMs: number;
    heapUsedMB: number;
    oldSpaceMB: number;
    newSpaceCommittedMB: number;
}

export const gcFile = (pid: number): string => join(tmpdir(), `rest-api-gc-${pid}.json`);

let gcMs = 0;
let gcCount = 0;
new PerformanceObserver(list => {
    for (const entry of list.getEntries()) {
        gcMs += entry.duration;
        gcCount++;
    }
}).observe({ entryTypes: ['gc'] });

const MB = 1024 * 1024;
process.on('SIGUSR2', () => {
    const spaces = getHeapSpaceStatistics();
    const space = (name: string): { space_used_size: number; space_size: number } | undefined => spaces.find(s => s.space_name === name);
    const figures: GcFigures = {
        gcMs,
        gcCount,
        atMs: performance.now(),
        heapUsedMB: getHeapStatistics().used_heap_size / MB,
        oldSpaceMB: (space('old_space')?.space_used_size ?? 0) / MB,
        newSpaceCommittedMB: (space('new_space')?.space_size ?? 0) / MB,
    };
    writeFileSync(gcFile(process.pid), JSON.stringify(figures));
});
