/*
 * What our request stack adds to a state write: `PATCH /v1/state/:id` against the least adapter that
 * does it on the same storage (bench/floor-adapter.ts: read the body, setForeignStateAsync, answer),
 * rounds interleaved, with each process's CPU time per request. `npm run bench -- --only floor`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../scripts/embedded-storage';
import type { BenchAdapter, BenchRuntime } from './fixture';
import { load, median, SCENARIOS } from './http';

export interface FloorFigures {
    ours: { rps: number; cpuUsPerRequest: number };
    floor: { rps: number; cpuUsPerRequest: number };
    oursToFloor: number;
    rounds: { ours: number; floor: number }[];
}

const PATCH = SCENARIOS.find(s => s.method === 'PATCH')!;

/** One autocannon run against `adapter`: requests per second, and its CPU time per request in µs. */
async function measured(adapter: BenchAdapter, seconds: number): Promise<{ rps: number; cpuUs: number }> {
    const before = adapter.cpuMs();
    const result = await load(adapter.baseUrl + PATCH.path, PATCH, seconds);
    const requests = result.rps * seconds;
    return { rps: result.rps, cpuUs: requests ? ((adapter.cpuMs() - before) * 1000) / requests : 0 };
}

export async function measureFloor(rt: BenchRuntime, seconds: number, rounds: number): Promise<FloorFigures> {
    // a 4.x version: ours must not take the floor for an instance it shares reads with (src/storage/peers.ts)
    const io = JSON.parse(readFileSync(join(PROJECT_ROOT, 'io-package.json'), 'utf8'));
    io.common.version = '4.0.0';
    const ioPackageFile = join(rt.storage.dataDir, 'floor-io-package.json');
    writeFileSync(ioPackageFile, JSON.stringify(io));
    const floor = await rt.startAdapter({ label: 'floor', main: join(__dirname, 'floor-adapter.js'), instance: 2, native: { checkInterval: 0 }, ioPackageFile });
    try {
        const targets = { ours: rt.ours, floor };
        for (const adapter of Object.values(targets)) {
            await load(adapter.baseUrl + PATCH.path, PATCH, 2);
        }
        const runs: Record<'ours' | 'floor', { rps: number; cpuUs: number }[]> = { ours: [], floor: [] };
        for (let round = 0; round < rounds; round++) {
            // who goes first alternates: neither always runs on a warmer machine
            const order = round % 2 ? (['floor', 'ours'] as const) : (['ours', 'floor'] as const);
            for (const label of order) {
                runs[label].push(await measured(targets[label], seconds));
            }
            console.log(`bench: floor round ${round + 1}: ours ${Math.round(runs.ours[round].rps)} req/s (${Math.round(runs.ours[round].cpuUs)} µs CPU each), floor ${Math.round(runs.floor[round].rps)} req/s (${Math.round(runs.floor[round].cpuUs)} µs)`);
        }
        const summary = (label: 'ours' | 'floor') => ({ rps: Math.round(median(runs[label].map(r => r.rps))), cpuUsPerRequest: Math.round(median(runs[label].map(r => r.cpuUs))) });
        const ours = summary('ours');
        const floorFigures = summary('floor');
        return {
            ours,
            floor: floorFigures,
            oursToFloor: Math.round((ours.rps / floorFigures.rps) * 100) / 100,
            rounds: runs.ours.map((r, i) => ({ ours: Math.round(r.rps), floor: Math.round(runs.floor[i].rps) })),
        };
    } finally {
        await floor.stop();
    }
}
