/*
 * `--only heap`: our adapter with its old generation limited to 32, 40, 48 and 64 MB and unlimited, as on a
 * small board (`--max-old-space-size`). Per limit a fresh adapter: its idle heap, then GET and PATCH of one
 * state, with the share of the time spent in GC pauses (bench/gc-meter.ts, preloaded). Limits rotate round by round.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { PROJECT_ROOT } from '../scripts/embedded-storage';
import type { BenchAdapter, BenchRuntime } from './fixture';
import { gcFile, type GcFigures } from './gc-meter';
import { load, median, SCENARIOS, type Scenario } from './http';

/** Old-generation limits in MB; 0: none. */
export const HEAP_LIMITS = [32, 40, 48, 64, 0];
const MEASURED = SCENARIOS.filter(s => s.name === 'GET /v1/state/:id' || s.name === 'PATCH /v1/state/:id');
const WARMUP_SECONDS = 2;

export interface HeapFigures {
    limit: string;
    idleHeapMB: number;
    idleOldSpaceMB: number;
    idleRssMB: number;
    /** Per scenario: median req/s, its share of the unlimited adapter's, median GC share in %. */
    [scenario: string]: string | number;
}

interface Sample {
    rps: number;
    gcPercent: number;
    non2xx: number;
    /** The adapter ended during the run (out of memory, or it lost its database while collecting). */
    died: boolean;
}

function alive(pid: number): boolean {
    try {
        process.kill(pid, 0);
        return true;
    } catch {
        return false;
    }
}

/** The adapter's GC figures, after asking it by SIGUSR2 (bench/gc-meter.ts). */
async function gcFigures(adapter: BenchAdapter): Promise<GcFigures> {
    const file = gcFile(adapter.pid);
    rmSync(file, { force: true });
    process.kill(adapter.pid, 'SIGUSR2');
    for (let i = 0; i < 200 && !existsSync(file); i++) {
        await delay(10);
    }
    const figures = JSON.parse(readFileSync(file, 'utf8')) as GcFigures;
    rmSync(file, { force: true });
    return figures;
}

async function sample(adapter: BenchAdapter, scenario: Scenario, seconds: number): Promise<Sample> {
    const before = await gcFigures(adapter);
    const result = await load(adapter.baseUrl + scenario.path, scenario, seconds);
    const non2xx = result.non2xx + result.errors + result.timeouts;
    if (!alive(adapter.pid)) {
        return { rps: 0, gcPercent: 100, non2xx, died: true };
    }
    const after = await gcFigures(adapter);
    const gcPercent = ((after.gcMs - before.gcMs) / (after.atMs - before.atMs)) * 100;
    return { rps: result.rps, gcPercent, non2xx, died: false };
}

/** js-controller refuses to start an instance whose alive state is still true (exit code 7): wait for it to clear. */
async function untilNotAlive(rt: BenchRuntime): Promise<void> {
    for (let i = 0; i < 300; i++) {
        const alive = await rt.storage.states.getStateAsync('system.adapter.rest-api.0.alive');
        if (!alive?.val) {
            return;
        }
        await delay(100);
    }
}

const limitName = (limit: number): string => (limit ? `${limit} MB` : 'none');

/** `extraFlags` (--node-flags) go to every limit's adapter. */
export async function measureHeapLimits(rt: BenchRuntime, seconds: number, rounds: number, extraFlags: string[] = []): Promise<HeapFigures[]> {
    // one adapter at a time: a second instance on the same storage would make each wait for read barriers
    await rt.ours.stop();
    await untilNotAlive(rt);
    const main = join(PROJECT_ROOT, 'build', 'src', 'main.js');
    const meter = join(__dirname, 'gc-meter.js');
    const samples = new Map<number, Map<string, Sample[]>>();
    const idle = new Map<number, { heap: number[]; old: number[]; rss: number[] }>();
    for (let round = 0; round < rounds; round++) {
        // rotated: whichever limit runs first or last does not always meet the same load of the VM
        const order = HEAP_LIMITS.map((_, i) => HEAP_LIMITS[(i + round) % HEAP_LIMITS.length]);
        for (const limit of order) {
            const nodeFlags = [...extraFlags, ...(limit ? [`--max-old-space-size=${limit}`] : []), '--require', meter];
            const adapter = await rt.startAdapter({ label: `heap ${limitName(limit)}`, main, instance: 0, nodeFlags });
            try {
                await delay(2000);
                const figures = await gcFigures(adapter);
                const seen = idle.get(limit) ?? { heap: [], old: [], rss: [] };
                seen.heap.push(figures.heapUsedMB);
                seen.old.push(figures.oldSpaceMB);
                seen.rss.push(adapter.rss());
                idle.set(limit, seen);
                for (const scenario of MEASURED) {
                    if (!alive(adapter.pid)) {
                        break;
                    }
                    await load(adapter.baseUrl + scenario.path, scenario, WARMUP_SECONDS);
                    const perLimit = samples.get(limit) ?? new Map<string, Sample[]>();
                    perLimit.set(scenario.name, [...(perLimit.get(scenario.name) ?? []), await sample(adapter, scenario, seconds)]);
                    samples.set(limit, perLimit);
                }
            } finally {
                await adapter.stop();
                await untilNotAlive(rt);
            }
        }
    }
    return tabulate(samples, idle);
}

function tabulate(samples: Map<number, Map<string, Sample[]>>, idle: Map<number, { heap: number[]; old: number[]; rss: number[] }>): HeapFigures[] {
    const round1 = (n: number): number => Math.round(n * 10) / 10;
    const unlimited = samples.get(0) ?? new Map<string, Sample[]>();
    return HEAP_LIMITS.map(limit => {
        const row: HeapFigures = {
            limit: limitName(limit),
            idleHeapMB: round1(median(idle.get(limit)!.heap)),
            idleOldSpaceMB: round1(median(idle.get(limit)!.old)),
            idleRssMB: Math.round(median(idle.get(limit)!.rss)),
        };
        for (const scenario of MEASURED) {
            const runs = samples.get(limit)?.get(scenario.name) ?? [{ rps: 0, gcPercent: 100, non2xx: 0, died: true }];
            const rps = median(runs.map(r => r.rps));
            const short = scenario.name.split(' ')[0];
            row[`${short} req/s`] = Math.round(rps);
            row[`${short} / none`] = Math.round((rps / median(unlimited.get(scenario.name)?.map(r => r.rps) ?? [0])) * 100) / 100;
            row[`${short} GC %`] = round1(median(runs.map(r => r.gcPercent)));
            row[`${short} non2xx`] = runs.reduce((sum, r) => sum + r.non2xx, 0);
            row[`${short} died`] = runs.filter(r => r.died).length;
        }
        return row;
    });
}
