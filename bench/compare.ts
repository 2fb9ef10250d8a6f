/*
 * `npm run bench -- --compare [version]` (default 4.0.2): this build, the published release and the
 * bare server on the same machine in the same run, interleaved round by round (ours, release, bare,
 * ours, ...), so load on the shared VM hits all three alike. HTTP hot paths, the fan-out of one write
 * to 10,000 pending polls, burst delivery to 100 sessions, and memory. Without network the release
 * cannot be installed and the run says so and measures without it.
 */
import { bareFanOut, pollFanOut } from './events';
import { measureBurst, type BurstFigures } from './burst';
import type { BenchAdapter, BenchRuntime } from './fixture';
import { load, median, SCENARIOS, type LoadResult } from './http';
import { installRelease } from './release';

export interface CompareOptions {
    version: string;
    seconds: number;
    rounds: number;
    polls: number;
    sessions: number;
    writes: number;
}

interface Row {
    scenario: string;
    [column: string]: string | number;
}

const round2 = (n: number): number => (Number.isFinite(n) ? Math.round(n * 100) / 100 : 0);

/** Median req/s and latencies per target, with the ratios a reader compares. */
function httpRow(scenario: string, results: Map<string, LoadResult[]>, release?: string): Row {
    const rps = (label: string): number => median(results.get(label)!.map(r => r.rps));
    const row: Row = { scenario };
    for (const label of results.keys()) {
        row[`${label} req/s`] = Math.round(rps(label));
        if (label !== 'bare') {
            row[`${label} p50/p99 ms`] = `${median(results.get(label)!.map(r => r.p50))} / ${median(results.get(label)!.map(r => r.p99))}`;
            row[`${label} non2xx`] = results.get(label)!.reduce((sum, r) => sum + r.non2xx + r.errors + r.timeouts, 0);
        }
    }
    row['ours/bare'] = round2(rps('ours') / rps('bare'));
    if (release) {
        row[`${release}/bare`] = round2(rps(release) / rps('bare'));
        row[`ours/${release}`] = round2(rps('ours') / rps(release));
    }
    return row;
}

async function measureHttpSideBySide(targets: { label: string; baseUrl: string }[], seconds: number, rounds: number, release?: string): Promise<Row[]> {
    const rows: Row[] = [];
    for (const scenario of SCENARIOS) {
        const results = new Map(targets.map(t => [t.label, [] as LoadResult[]]));
        for (const target of targets) {
            // not counted: each server compiles the path and fills its caches first
            await load(target.baseUrl + scenario.path, scenario, 1);
        }
        for (let round = 0; round < rounds; round++) {
            for (const target of targets) {
                results.get(target.label)!.push(await load(target.baseUrl + scenario.path, scenario, seconds));
            }
        }
        rows.push(httpRow(scenario.name, results, release));
    }
    return rows;
}

/** The published release installed (once) and started on the same storage; a skip says why not. */
export async function startRelease(rt: BenchRuntime, version: string): Promise<{ release?: BenchAdapter; skip?: string }> {
    const installed = await installRelease(version);
    if ('skip' in installed) {
        console.log(`bench: ${installed.skip}`);
        return { skip: installed.skip };
    }
    return { release: await rt.startAdapter({ label: installed.version, main: installed.main, instance: 1, native: { checkInterval: 0 }, ioPackageFile: installed.ioPackageFile, cwd: installed.dir }) };
}

export async function measureCompare(rt: BenchRuntime, bareUrl: string, options: CompareOptions): Promise<Record<string, unknown>> {
    const { release, skip } = await startRelease(rt, options.version);
    const adapters = [rt.ours, ...(release ? [release] : [])];
    await new Promise(resolve => setTimeout(resolve, 2000));
    const idleRssMB = Object.fromEntries(adapters.map(a => [a.label, Math.round(a.rss())]));
    const startMs = Object.fromEntries(adapters.map(a => [a.label, a.startMs]));
    adapters.forEach(a => a.resetPeakRss());
    console.log(`bench: idle RSS ${JSON.stringify(idleRssMB)} MB, spawn to first answer ${JSON.stringify(startMs)} ms`);

    const http = await measureHttpSideBySide([...adapters, { label: 'bare', baseUrl: bareUrl }], options.seconds, options.rounds, release?.label);
    console.table(http);

    const fanOut: Record<string, unknown>[] = [];
    for (let round = 1; round <= options.rounds; round++) {
        const row: Record<string, unknown> = { round };
        for (const adapter of adapters) {
            // a state and sessions of their own per round and adapter: earlier sessions hear nothing of this write
            const figures = await pollFanOut(adapter, rt.storage, options.polls, `0_userdata.0.fan_${adapter.label.replace(/\W/g, '_')}_${round}`, `r${round}_`);
            row[adapter.label] = figures;
        }
        row.bare = await bareFanOut(options.polls);
        fanOut.push(row);
        console.log(`bench: fan-out round ${round}: ${adapters.map(a => `${a.label} p99 ${(row[a.label] as { p99Ms: number }).p99Ms} ms`).join(', ')}, bare p99 ${(row.bare as { p99Ms: number }).p99Ms} ms`);
    }
    const p99 = (label: string): number => median(fanOut.map(r => (r[label] as { p99Ms: number }).p99Ms));
    const fanOutSummary: Record<string, number> = { oursP99Ms: p99('ours'), bareP99Ms: p99('bare'), oursToBare: round2(p99('ours') / p99('bare')) };
    if (release) {
        fanOutSummary.releaseP99Ms = p99(release.label);
        fanOutSummary.oursToRelease = round2(p99('ours') / p99(release.label));
    }

    const burst: Record<string, BurstFigures> = {};
    for (const adapter of adapters) {
        burst[adapter.label] = await measureBurst(adapter, rt.storage, options.sessions, options.writes, `0_userdata.0.burst_${adapter.label.replace(/\W/g, '_')}`);
    }
    console.table(burst);

    const peakRssMB = Object.fromEntries(adapters.map(a => [a.label, Math.round(a.peakRss())]));
    const memory = { idleRssMB, peakRssMB, ...(release ? { peakOursToRelease: round2(peakRssMB.ours / peakRssMB[release.label]) } : {}) };
    console.log(`bench: fan-out medians ${JSON.stringify(fanOutSummary)}; memory ${JSON.stringify(memory)}`);
    return { release: release?.label ?? null, skipped: skip, startMs, http, fanOut, fanOutSummary, burst, memory };
}
