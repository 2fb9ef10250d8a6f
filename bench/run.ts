/*
 * `npm run bench`: HTTP hot paths and event fan-out against the embedded runtime and a bare node:http
 * server, interleaved in one run. Prints a table, writes bench/results/<time>.json. Loopback only.
 * Flags (`npm run bench -- --help`, bench/options.ts): --only <part>, --compare [version], --seconds,
 * --rounds, the sizes of each part, and how our adapter is started (--adapter-main, --node-flags, --profile).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { conditionalLine, measureConditional } from './conditional';
import { measureFanOut } from './events';
import { measureFloor } from './floor';
import { startRuntime, stopLeftovers, type BenchRuntime, type OursOptions } from './fixture';
import { measureHttp, startBare, VALUE_ID } from './http';
import { measureLargeInstall } from './large-install';
import { measureLimitedListing } from './listing-acl';
import { measureDevices } from './devices';
import { measureRandomReads } from './random-reads';
import { measureSerializers } from './serialize';
import { measureSharing } from './sharing';
import { pollingRounds, type RoundFigures } from './polling-rounds';
import { measureScaling } from './scaling';
import { measureHistoryExport } from './history-export';
import { measureZoneSpellings } from './history-zones';
import { measureCompare, startRelease } from './compare';
import { measureHeapLimits } from './heap';
import { DEFAULT_COMPARE_VERSION, parseBenchOptions, USAGE, UsageError, type BenchOptions } from './options';
import { PROJECT_ROOT } from '../scripts/embedded-storage';

/** The whole run must end by itself: whatever hangs is reported, everything is stopped, and the adapter goes with us. */
const WATCHDOG_MS = 9.5 * 60_000;
/** The scaling part holds up to 50,000 connections per target, round after round: it gets longer. */
const SCALING_WATCHDOG_MS = 40 * 60_000;

/** Exit code of a command line the bench cannot run, and of a run the watchdog ended. */
const EXIT_USAGE = 2;
const EXIT_WATCHDOG = 2;

async function main(args: string[]): Promise<void> {
    let options: BenchOptions;
    try {
        options = parseBenchOptions(args);
    } catch (err) {
        if (!(err instanceof UsageError)) {
            throw err;
        }
        console.error(`bench: ${err.message}\n\n${USAGE}`);
        process.exitCode = EXIT_USAGE;
        return;
    }
    if (options.help) {
        console.log(USAGE);
        return;
    }
    const started = Date.now();
    const result: Record<string, unknown> = { date: new Date().toISOString(), node: process.version };
    let rt: BenchRuntime | undefined;
    let bare: Awaited<ReturnType<typeof startBare>> | undefined;
    const watchdog = new AbortController();
    // keeps the process alive until it fires or the run is done: a part that hangs is reported, not left behind
    const watchdogMs = options.only === 'scaling' ? SCALING_WATCHDOG_MS : WATCHDOG_MS;
    const expired = delay(watchdogMs, 'expired' as const, { signal: watchdog.signal });
    const run = async (): Promise<'done'> => {
        if (options.only === 'polling' && options.url) {
            // another instance, anywhere: nothing of ours is started
            result.polling = await runPollingRounds(options.url, options);
            return 'done';
        }
        // rounds of 10,000 polls, 1,000 streams or 1,000 hooks each stay within the limits (what earlier rounds opened is still
        // there; the scaling part's four rounds of up to 50,000 sessions too); the polling rounds are about the default limits
        const bound = options.only === 'scaling' ? 1_000_000 : 100_000;
        const limits = options.only === 'polling' ? {} : { pollSessionsPerUser: bound, pollSessionsTotal: bound, hooksPerUser: bound, hooksTotal: bound, sseStreamsPerUser: bound, sseStreamsTotal: bound };
        rt = await startRuntime(oursOptions(options), { hookRetryMs: 200, hookMaxFailures: 20, hookTimeout: 5000, checkInterval: 0, ...limits });
        // after the storage: the bare fan-outs fire on a change in its states DB, as the adapters do
        bare = await startBare(rt.storage);
        await measure(rt, bare.baseUrl, options, result);
        return 'done';
    };
    try {
        if ((await Promise.race([run(), expired])) === 'expired') {
            console.error(`bench: no result after ${watchdogMs / 60_000} minutes, giving up; stopping what runs (open: ${openResources()})`);
            process.exitCode = EXIT_WATCHDOG;
            return;
        }
    } finally {
        watchdog.abort();
        await rt?.stop();
        bare?.stop();
        // after a failure or the watchdog: what a part started and did not stop (the adapters, their storage, bare servers)
        await stopLeftovers();
    }
    result.seconds = Math.round((Date.now() - started) / 1000);
    const dir = join(PROJECT_ROOT, 'bench', 'results');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `${String(result.date).replace(/[:.]/g, '-')}.json`);
    writeFileSync(file, JSON.stringify(result, null, 2) + '\n');
    const adapter = result.startMs === undefined ? '' : `adapter RSS idle ${result.adapterRssIdleMB} MB, after ${result.adapterRssAfterMB} MB, start ${result.startMs} ms; `;
    console.log(`${adapter}${result.seconds} s in all; written to ${file}`);
}

/** Round after round of fresh long-polling sessions (bench/polling-rounds.ts), a line per round. */
function runPollingRounds(url: string, options: BenchOptions): Promise<RoundFigures[]> {
    const sessions = options.sessions ?? 10_000;
    console.log(`polling rounds: ${options.rounds ?? 3} of ${sessions} fresh sessions against ${new URL(url).host}`);
    return pollingRounds({ url, sessions }, options.rounds ?? 3, figures => console.log(JSON.stringify(figures)));
}

/** The handles and requests keeping the event loop alive, counted by kind. */
function openResources(): string {
    const counts = new Map<string, number>();
    for (const kind of process.getActiveResourcesInfo()) {
        counts.set(kind, (counts.get(kind) ?? 0) + 1);
    }
    return [...counts].map(([kind, n]) => `${kind} ×${n}`).join(', ');
}

const oursOptions = (options: BenchOptions): OursOptions => ({ main: options.adapterMain, nodeFlags: options.nodeFlags, profileDir: options.profile });

/** The parts the options ask for, on the runtime `rt`; figures go into `result`. */
async function measure(rt: BenchRuntime, bareUrl: string, options: BenchOptions, result: Record<string, unknown>): Promise<void> {
    const compare = options.compare;
    // a compare run measures only its own side-by-side parts; with --only random or scaling that part beside the release instead
    const partBesideRelease = !!compare && (options.only === 'random' || options.only === 'scaling');
    const only = compare && !partBesideRelease ? 'compare' : options.only;
    const { seconds, rounds } = options;
    const randomSizes = options.randomStates;
    await rt.storage.objects.setObjectAsync(VALUE_ID, { type: 'state', common: { name: 'bench', type: 'number', role: 'value', read: true, write: true }, native: {} });
    await rt.storage.states.setStateAsync(VALUE_ID, { val: 1, ack: true, from: 'system.adapter.bench.0' });
    await delay(2000);
    result.adapterRssIdleMB = Math.round(rt.adapterRss());
    result.startMs = rt.startMs;
    if (compare && !partBesideRelease) {
        // the side-by-side run with a published release is a run of its own: under 10 minutes
        result.compare = await measureCompare(rt, bareUrl, {
            version: compare,
            releaseCache: options.releaseCache,
            seconds: seconds ?? 3,
            rounds: rounds ?? 3,
            pollRounds: options.pollRounds,
            polls: options.polls,
            sessions: options.sessions ?? 100,
            writes: options.writes,
            randomSizes,
            streams: options.streams,
            hooks: options.hooks,
            eventRounds: options.eventRounds,
        });
    }
    if (!only || only === 'listing') {
        result.limitedListing = await measureLimitedListing(oursOptions(options), options.listingStates);
        console.table([result.limitedListing]);
    }
    if (!only || only === 'large') {
        result.largeInstall = await measureLargeInstall(oursOptions(options), options.largeStates);
        console.log(JSON.stringify(result.largeInstall, null, 2));
    }
    if (!only || only === 'random') {
        const beside = partBesideRelease ? await startRelease(rt, compare, options.releaseCache) : {};
        result.randomReads = await measureRandomReads(rt, bareUrl, randomSizes, seconds ?? 8, rounds ?? 3, beside.release);
        console.table(result.randomReads);
    }
    if (!only || only === 'serialize') {
        const prefix = '0_userdata.0.bench_serialize';
        for (let i = 0; i < 1000; i++) {
            const id = `${prefix}.s${i}`;
            await rt.storage.objects.setObjectAsync(id, { type: 'state', common: { name: `s${i}`, type: 'number', role: 'value', read: true, write: true }, native: {} });
            await rt.storage.states.setStateAsync(id, { val: i * 1.5, ack: true, from: 'system.adapter.bench.0' });
        }
        result.serializers = await measureSerializers(rt, prefix);
        console.table(result.serializers);
    }
    if (!only || only === 'http') {
        const http = await measureHttp(rt, bareUrl, seconds ?? 8, rounds ?? 3);
        result.http = http;
        console.table(http);
    }
    // optional: run only when asked for, it is no hot path of its own
    if (only === 'conditional' || options.conditional) {
        result.conditional = await measureConditional(rt, seconds ?? 8, rounds ?? 3);
        console.log(conditionalLine(result.conditional as Awaited<ReturnType<typeof measureConditional>>));
    }
    if (!only || only === 'events') {
        result.events = await measureFanOut(rt, options.polls, options.hooks);
        console.log(JSON.stringify(result.events, null, 2));
    }
    if (only === 'floor') {
        // on request only: what our request stack adds to a state write, against the least adapter that does it
        result.floor = await measureFloor(rt, seconds ?? 4, rounds ?? 5);
        console.log(JSON.stringify(result.floor, null, 2));
    }
    if (only === 'polling') {
        result.polling = await runPollingRounds(rt.ours.baseUrl, options);
    }
    if (only === 'scaling') {
        // on request only: tens of thousands of connections per target, beside the release (4.0.2 unless --compare names one)
        const version = compare ?? DEFAULT_COMPARE_VERSION;
        result.scaling = await measureScaling(rt, { polls: options.scalePolls, streams: options.scaleStreams, rounds: rounds ?? 3, version, releaseCache: options.releaseCache, profileDir: options.profile });
    }
    if (only === 'history') {
        // on request only: a year of minute values of ten ids exported as CSV from the real history adapter
        result.historyExport = await measureHistoryExport(rt);
        // distinct zone spellings, refused and allowed: a runtime of its own with auth on
        result.historyZones = await measureZoneSpellings(oursOptions(options));
    }
    if (only === 'heap') {
        // on request only: a fresh adapter per heap limit, as on a small board
        result.heap = await measureHeapLimits(rt, seconds ?? 5, rounds ?? 2, options.nodeFlags);
        console.table(result.heap);
        return;
    }
    if (only === 'devices') {
        // on request only: a runtime of its own with 1,000 detected devices beside 10,000 plain states
        result.devices = await measureDevices(oursOptions(options));
        console.table([result.devices]);
    }
    if (only === 'sharing') {
        // on request only: it starts two Redis clusters of its own
        result.sharing = await measureSharing(rt, seconds ?? 3, rounds ?? 3);
        console.log(JSON.stringify(result.sharing, null, 2));
    }
    result.adapterRssAfterMB = Math.round(rt.adapterRss());
}

// no process.exit: the run ends when everything it started is stopped
main(process.argv.slice(2)).catch(err => {
    console.error(err);
    process.exitCode = 1;
});
