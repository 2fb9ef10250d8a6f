/*
 * `npm run bench -- --compare [version]` (default 4.0.2): this build, the published release and the
 * bare server on the same machine in the same run, interleaved round by round (ours, release, bare,
 * ours, ...), so load on the shared VM hits all three alike; every round is printed. HTTP hot paths,
 * the fan-out of one write to 10,000 pending polls, burst delivery to 100 sessions, memory, random
 * reads over 1,000 / 10,000 / 50,000 states, the fan-out to 1,000 event streams (ours and bare: the
 * release has none) and to 1,000 URL hooks; then a summary and the issue's targets, pass or fail.
 * Without network the release cannot be installed and the run says so and measures without it.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { bareFanOut, pollFanOut } from './events';
import { measureBurst, type BurstFigures } from './burst';
import type { BenchAdapter, BenchRuntime } from './fixture';
import { bareHookFanOut, hookFanOut } from './hooks';
import { load, median, SCENARIOS, type LoadResult } from './http';
import { measureRandomReads, type RandomReadFigures } from './random-reads';
import { installRelease } from './release';
import { bareSseFanOut, sseFanOut, type ReceiverFigures, type SseFigures } from './sse';
import { ratio, targetTable, type Summary } from './targets';

export interface CompareOptions {
    version: string;
    /** Where the release is installed (`--release-cache`). */
    releaseCache: string;
    seconds: number;
    rounds: number;
    /** Rounds of the poll fan-out: its rounds spread widely (0.6–2.7 of bare); each keeps its 10,000 sessions, so more raise the peak RSS. */
    pollRounds: number;
    polls: number;
    sessions: number;
    writes: number;
    /** State counts of the random reads; the first is the hot set. */
    randomSizes: number[];
    /** Event streams and URL hooks of their fan-outs. */
    streams: number;
    hooks: number;
    /** Rounds of the SSE and hook fan-outs: a round takes a few seconds and a single one tens of ms, so more of them. */
    eventRounds: number;
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

/** Not counted, per scenario and target: 1 s; 2 s for the first, which runs while a just-started release may still be busy starting. */
const warmUpSeconds = (scenario: number): number => (scenario === 0 ? 2 : 1);

async function measureHttpSideBySide(targets: { label: string; baseUrl: string }[], seconds: number, rounds: number, release?: string): Promise<Row[]> {
    const rows: Row[] = [];
    for (const [index, scenario] of SCENARIOS.entries()) {
        const results = new Map(targets.map(t => [t.label, [] as LoadResult[]]));
        for (const target of targets) {
            // not counted: each server compiles the path and fills its caches first
            await load(target.baseUrl + scenario.path, scenario, warmUpSeconds(index));
        }
        for (let round = 0; round < rounds; round++) {
            for (const target of targets) {
                results.get(target.label)!.push(await load(target.baseUrl + scenario.path, scenario, seconds));
            }
            console.log(`bench: ${scenario.name} round ${round + 1}: ${targets.map(t => `${t.label} ${Math.round(results.get(t.label)![round].rps)} req/s p99 ${results.get(t.label)![round].p99} ms`).join(', ')}`);
        }
        rows.push(httpRow(scenario.name, results, release));
    }
    return rows;
}

/** The published release installed (once) and started on the same storage; a skip says why not. */
export async function startRelease(rt: BenchRuntime, version: string, releaseCache: string): Promise<{ release?: BenchAdapter; skip?: string }> {
    const installed = await installRelease(version, releaseCache);
    if ('skip' in installed) {
        console.log(`bench: ${installed.skip}`);
        return { skip: installed.skip };
    }
    return { release: await rt.startAdapter({ label: installed.version, main: installed.main, instance: 1, native: { checkInterval: 0 }, ioPackageFile: installed.ioPackageFile, cwd: installed.dir }) };
}

/** Runs bare, then ours; answers in the order ours, bare. */
async function bareFirst(runBare: () => Promise<SseFigures>, runOurs: () => Promise<SseFigures>): Promise<[SseFigures, SseFigures]> {
    const bare = await runBare();
    return [await runOurs(), bare];
}

const slug = (label: string): string => label.replace(/\W/g, '_');

/** Medians over rounds of receiver figures per target, and the rounds themselves. */
function receiverSummary(rounds: Record<string, ReceiverFigures>[], label: string): { p50Ms: number; p99Ms: number; maxMs: number; lost: number; refused: number } {
    const of = (field: 'p50Ms' | 'p99Ms' | 'maxMs'): number => median(rounds.map(r => r[label][field]));
    return { p50Ms: of('p50Ms'), p99Ms: of('p99Ms'), maxMs: of('maxMs'), lost: rounds.reduce((n, r) => n + r[label].lost, 0), refused: rounds.reduce((n, r) => n + r[label].refused, 0) };
}

const receiverLine = (label: string, f: ReceiverFigures): string => `${label} p50 ${f.p50Ms} / p99 ${f.p99Ms} / last ${f.maxMs} ms${f.lost ? `, ${f.lost} lost` : ''}${f.refused ? `, ${f.refused} refused` : ''}`;

/** Per random-read round: 2 s (the DB read dominates and varies little), so that the whole run stays under 10 minutes. */
const RANDOM_SECONDS = 2;

export async function measureCompare(rt: BenchRuntime, bareUrl: string, options: CompareOptions): Promise<Record<string, unknown>> {
    const started = Date.now();
    const at = (): string => `[${Math.round((Date.now() - started) / 1000)} s]`;
    const { release, skip } = await startRelease(rt, options.version, options.releaseCache);
    const adapters = [rt.ours, ...(release ? [release] : [])];
    await delay(2000);
    const idleRssMB = Object.fromEntries(adapters.map(a => [a.label, Math.round(a.rss())]));
    const startMs = Object.fromEntries(adapters.map(a => [a.label, a.startMs]));
    const nodeFlags = Object.fromEntries(adapters.map(a => [a.label, a.nodeFlags.join(' ') || '(none)']));
    adapters.forEach(a => a.resetPeakRss());
    console.log(`bench: idle RSS ${JSON.stringify(idleRssMB)} MB, spawn to first answer ${JSON.stringify(startMs)} ms, Node flags ${JSON.stringify(nodeFlags)}`);

    const http = await measureHttpSideBySide([...adapters, { label: 'bare', baseUrl: bareUrl }], options.seconds, options.rounds, release?.label);
    console.table(http);
    console.log(`bench: ${at()} HTTP done`);

    const fanOut: Record<string, unknown>[] = [];
    for (let round = 1; round <= options.pollRounds; round++) {
        const row: Record<string, unknown> = { round };
        for (const adapter of adapters) {
            // a state and sessions of their own per round and adapter: earlier sessions hear nothing of this write
            const figures = await pollFanOut(adapter, rt.storage, options.polls, `0_userdata.0.fan_${slug(adapter.label)}_${round}`, `r${round}_`);
            row[adapter.label] = figures;
        }
        row.bare = await bareFanOut(options.polls, rt.storage, `0_userdata.0.fan_bare_${round}`);
        fanOut.push(row);
        console.log(`bench: fan-out round ${round}: ${adapters.map(a => `${a.label} p99 ${(row[a.label] as { p99Ms: number }).p99Ms} ms`).join(', ')}, bare p99 ${(row.bare as { p99Ms: number }).p99Ms} ms`);
    }
    const p99 = (label: string): number => median(fanOut.map(r => (r[label] as { p99Ms: number }).p99Ms));
    const fanOutSummary: Record<string, number> = { oursP99Ms: p99('ours'), bareP99Ms: p99('bare'), oursToBare: round2(p99('ours') / p99('bare')) };
    if (release) {
        fanOutSummary.releaseP99Ms = p99(release.label);
        fanOutSummary.oursToRelease = round2(p99('ours') / p99(release.label));
    }
    console.log(`bench: ${at()} fan-out done`);

    const burst: Record<string, BurstFigures> = {};
    for (const adapter of adapters) {
        burst[adapter.label] = await measureBurst(adapter, rt.storage, options.sessions, options.writes, `0_userdata.0.burst_${slug(adapter.label)}`);
    }
    console.table(burst);

    // the peak over HTTP, poll fan-out and burst, as in earlier compare runs (before 50,000 states are cached)
    const peakRssMB = Object.fromEntries(adapters.map(a => [a.label, Math.round(a.peakRss())]));
    const memory = {
        idleRssMB,
        peakRssMB,
        ...(release ? { idleOursToRelease: ratio(idleRssMB.ours, idleRssMB[release.label]), peakOursToRelease: ratio(peakRssMB.ours, peakRssMB[release.label]) } : {}),
    };
    console.log(`bench: ${at()} burst done; fan-out medians ${JSON.stringify(fanOutSummary)}; memory ${JSON.stringify(memory)}`);

    const randomReads: RandomReadFigures[] = await measureRandomReads(rt, bareUrl, options.randomSizes, RANDOM_SECONDS, options.rounds, release);
    const randomRows = randomReads.map(r => ({
        states: r.states,
        'ours req/s': r.rps,
        'ours p99 ms': r.p99Ms,
        ...(release ? { [`${release.label} req/s`]: r.releaseRps!, [`${release.label} p99 ms`]: r.releaseP99Ms!, [`ours/${release.label}`]: r.oursToRelease! } : {}),
        'ours/bare': r.ratio,
        non2xx: r.non2xx,
    }));
    console.table(randomRows);
    console.log(`bench: ${at()} random reads done`);

    // SSE: the release has none. Not counted: a full-size fan-out per target first, so both deliver with warm code
    await sseFanOut(rt.ours, rt.storage, options.streams, '0_userdata.0.sse_warm');
    await bareSseFanOut(bareUrl, rt.storage, options.streams, 200, '0_userdata.0.sse_warm_bare');
    const sse: Record<string, ReceiverFigures>[] = [];
    let frameBytes = 0;
    for (let round = 1; round <= options.eventRounds; round++) {
        // who goes first alternates: whatever the previous round left behind (closing 1,000 sockets) hits both alike
        const runOurs = async (): Promise<SseFigures> => {
            const figures = await sseFanOut(rt.ours, rt.storage, options.streams, `0_userdata.0.sse_ours_${round}`);
            frameBytes ||= figures.frameBytes;
            return figures;
        };
        const runBare = (): Promise<SseFigures> => bareSseFanOut(bareUrl, rt.storage, options.streams, frameBytes || 200, `0_userdata.0.sse_bare_${round}`);
        const [ours, bare] = round % 2 ? [await runOurs(), await runBare()] : await bareFirst(runBare, runOurs);
        sse.push({ ours, bare });
        console.log(`bench: SSE fan-out round ${round} (${options.streams} streams, ${ours.frameBytes} B frame): ${receiverLine('ours', ours)}; ${receiverLine('bare', bare)}; last ours/bare ${ratio(ours.maxMs, bare.maxMs) ?? '-'}`);
    }
    const sseSummary = { ours: receiverSummary(sse, 'ours'), bare: receiverSummary(sse, 'bare') };
    console.log(`bench: ${at()} SSE done`);

    const hookTargets = [...adapters.map(a => ({ label: a.label, run: (count: number, id: string) => hookFanOut(a, rt.storage, count, id) })), { label: 'bare', run: (count: number, id: string) => bareHookFanOut(bareUrl, rt.storage, count, id) }];
    // not counted: a full-size fan-out per target first (registering hooks does not warm the code that delivers them)
    for (const target of hookTargets) {
        await target.run(options.hooks, `0_userdata.0.hook_warm_${slug(target.label)}`);
    }
    const hooks: Record<string, ReceiverFigures>[] = [];
    for (let round = 1; round <= options.eventRounds; round++) {
        const row: Record<string, ReceiverFigures> = {};
        for (const target of round % 2 ? hookTargets : [...hookTargets].reverse()) {
            row[target.label] = await target.run(options.hooks, `0_userdata.0.hook_${slug(target.label)}_${round}`);
        }
        hooks.push(row);
        console.log(`bench: hook fan-out round ${round} (${options.hooks} hooks): ${hookTargets.map(t => receiverLine(t.label, row[t.label])).join('; ')}`);
    }
    const hookSummary = Object.fromEntries(hookTargets.map(t => [t.label, receiverSummary(hooks, t.label)]));
    // a release whose hooks were refused or never called has no figures to compare
    const releaseHooksWork = !!release && hookSummary[release.label].refused + hookSummary[release.label].lost < options.hooks * options.rounds;
    console.log(`bench: ${at()} hooks done`);

    const oursLost = (rounds: Record<string, unknown>[]): number => rounds.reduce((n, r) => n + ((r.ours as { lost: number }).lost ?? 0), 0);
    const summary: Summary = {
        release: release?.label ?? null,
        polls: { oursToBare: ratio(p99('ours'), p99('bare')), oursToRelease: release ? ratio(p99('ours'), p99(release.label)) : undefined, oursLost: oursLost(fanOut) },
        sse: { p99OursToBare: ratio(sseSummary.ours.p99Ms, sseSummary.bare.p99Ms), lastOursToBare: ratio(sseSummary.ours.maxMs, sseSummary.bare.maxMs), oursLost: sseSummary.ours.lost + sseSummary.ours.refused },
        hooks: {
            lastOursToBare: ratio(hookSummary.ours.maxMs, hookSummary.bare.maxMs),
            p99OursToBare: ratio(hookSummary.ours.p99Ms, hookSummary.bare.p99Ms),
            lastOursToRelease: releaseHooksWork ? ratio(hookSummary.ours.maxMs, hookSummary[release!.label].maxMs) : undefined,
            oursLost: hookSummary.ours.lost + hookSummary.ours.refused,
        },
        random: randomReads.map(r => ({ states: r.states, oursToRelease: r.oursToRelease, p99Ms: r.p99Ms, releaseP99Ms: r.releaseP99Ms, oursToBare: r.ratio })),
        http: http.map(h => ({ scenario: h.scenario, oursToBare: h['ours/bare'] as number, oursToRelease: release ? (h[`ours/${release.label}`] as number) : undefined })),
        memory: { idleOursToRelease: ratio(idleRssMB.ours, release && idleRssMB[release.label]), peakOursToRelease: ratio(peakRssMB.ours, release && peakRssMB[release.label]) },
    };
    const hot = summary.random[0];
    console.log(
        `bench: summary: polls p99 ours/${release?.label ?? '-'} ${summary.polls.oursToRelease ?? '-'}, ours/bare ${summary.polls.oursToBare}; ` +
            `SSE ours/bare p99 ${summary.sse.p99OursToBare}, last ${summary.sse.lastOursToBare}; hooks ours/bare last ${summary.hooks.lastOursToBare} (ours/${release?.label ?? '-'} ${summary.hooks.lastOursToRelease ?? '-'}); ` +
            `random ${summary.random.map(r => `${r.states}: ours/${release?.label ?? '-'} ${r.oursToRelease ?? '-'} p99 ${r.p99Ms} ms`).join(', ')}; hot set ours/bare ${hot?.oursToBare ?? '-'}; ` +
            `memory ours/${release?.label ?? '-'} idle ${summary.memory.idleOursToRelease ?? '-'}, peak ${summary.memory.peakOursToRelease ?? '-'}`,
    );
    const targets = targetTable(summary);
    console.log('targets');
    console.table(targets);
    const seconds = Math.round((Date.now() - started) / 1000);
    console.log(`bench: compare run took ${Math.floor(seconds / 60)} min ${seconds % 60} s`);
    return { release: release?.label ?? null, skipped: skip, nodeFlags, startMs, http, fanOut, fanOutSummary, burst, memory, randomReads, sse, sseSummary, hooks, hookSummary, summary, targets, seconds };
}
