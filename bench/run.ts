/*
 * `npm run bench`: HTTP hot paths and event fan-out against the embedded runtime and a bare node:http
 * server, interleaved in one run. Prints a table, writes bench/results/<time>.json. Loopback only.
 * Environment: BENCH_SECONDS (per run, default 8), BENCH_ROUNDS (default 3), BENCH_POLL_ROUNDS (rounds of the compare run's poll fan-out, 3), BENCH_POLLS (10000),
 * BENCH_HOOKS (1000), BENCH_STREAMS (SSE streams of the compare run, 1000), BENCH_EVENT_ROUNDS (rounds of its SSE and hook fan-outs, 9), BENCH_NODE_FLAGS (replaces our adapter's Node flags), BENCH_LISTING (states of the limited-user listing, 10000), BENCH_RANDOM (state counts of the random-read part, 1000,10000,50000: 1,000 is the hot set), BENCH_LARGE (states of the large installation, 50000),
 * BENCH_ONLY=http|events|listing|random|large|serialize|sharing|conditional|floor (sharing, conditional, floor: only when named; random with --compare: random reads beside the release); BENCH_ADAPTER_MAIN: another build's main.js to measure instead.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { conditionalLine, measureConditional } from './conditional';
import { measureFanOut } from './events';
import { measureFloor } from './floor';
import { startRuntime } from './fixture';
import { measureHttp, startBare, VALUE_ID } from './http';
import { measureLargeInstall } from './large-install';
import { measureLimitedListing } from './listing-acl';
import { measureRandomReads } from './random-reads';
import { measureSerializers } from './serialize';
import { measureSharing } from './sharing';
import { measureCompare, startRelease } from './compare';
import { PROJECT_ROOT } from '../scripts/embedded-storage';

const env = (name: string, fallback: number): number => Number(process.env[name] ?? fallback);

/** The whole run must end by itself: whatever hangs is reported, and the adapter goes with us. */
const WATCHDOG_MS = 9.5 * 60_000;

/** `--compare` or `--compare <version>`: the published release to measure side by side (default 4.0.2). */
function compareVersion(): string | undefined {
    const at = process.argv.indexOf('--compare');
    if (at === -1) {
        return process.env.BENCH_COMPARE || undefined;
    }
    const next = process.argv[at + 1];
    return next && !next.startsWith('-') ? next : '4.0.2';
}

async function main(): Promise<void> {
    setTimeout(() => {
        console.error(`bench: no result after ${WATCHDOG_MS / 60_000} minutes, giving up`);
        process.exit(2);
    }, WATCHDOG_MS).unref();
    // a compare run measures only its own side-by-side parts; with BENCH_ONLY=random the random reads beside the release instead
    const randomBesideRelease = !!compareVersion() && process.env.BENCH_ONLY === 'random';
    const only = compareVersion() && !randomBesideRelease ? 'compare' : process.env.BENCH_ONLY;
    const started = Date.now();
    // rounds of 10,000 polls, 1,000 streams or 1,000 hooks each stay within the limits (what earlier rounds opened is still there)
    const limits = { pollSessionsPerUser: 100_000, pollSessionsTotal: 100_000, hooksPerUser: 100_000, hooksTotal: 100_000, sseStreamsPerUser: 100_000, sseStreamsTotal: 100_000 };
    const rt = await startRuntime({ hookRetryMs: 200, hookMaxFailures: 20, hookTimeout: 5000, checkInterval: 0, ...limits });
    // after the storage: the bare fan-outs fire on a change in its states DB, as the adapters do
    const bare = await startBare(rt.storage);
    const randomSizes = (process.env.BENCH_RANDOM ?? '1000,10000,50000').split(',').map(Number);
    const result: Record<string, unknown> = { date: new Date().toISOString(), node: process.version };
    try {
        await rt.storage.objects.setObjectAsync(VALUE_ID, { type: 'state', common: { name: 'bench', type: 'number', role: 'value', read: true, write: true }, native: {} });
        await rt.storage.states.setStateAsync(VALUE_ID, { val: 1, ack: true, from: 'system.adapter.bench.0' });
        await new Promise(resolve => setTimeout(resolve, 2000));
        result.adapterRssIdleMB = Math.round(rt.adapterRss());
        result.startMs = rt.startMs;
        const compare = compareVersion();
        if (compare && !randomBesideRelease) {
            // the side-by-side run with a published release is a run of its own: under 10 minutes
            result.compare = await measureCompare(rt, bare.baseUrl, {
                version: compare,
                seconds: env('BENCH_SECONDS', 3),
                rounds: env('BENCH_ROUNDS', 3),
                pollRounds: env('BENCH_POLL_ROUNDS', 3),
                polls: env('BENCH_POLLS', 10_000),
                sessions: env('BENCH_SESSIONS', 100),
                writes: env('BENCH_WRITES', 1000),
                randomSizes,
                streams: env('BENCH_STREAMS', 1000),
                hooks: env('BENCH_HOOKS', 1000),
                eventRounds: env('BENCH_EVENT_ROUNDS', 9),
            });
        }
        if (!only || only === 'listing') {
            result.limitedListing = await measureLimitedListing(env('BENCH_LISTING', 10_000));
            console.table([result.limitedListing]);
        }
        if (!only || only === 'large') {
            result.largeInstall = await measureLargeInstall(env('BENCH_LARGE', 50_000));
            console.log(JSON.stringify(result.largeInstall, null, 2));
        }
        if (!only || only === 'random') {
            const beside = randomBesideRelease ? await startRelease(rt, compare!) : {};
            result.randomReads = await measureRandomReads(rt, bare.baseUrl, randomSizes, env('BENCH_SECONDS', 8), env('BENCH_ROUNDS', 3), beside.release);
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
            const http = await measureHttp(rt, bare.baseUrl, env('BENCH_SECONDS', 8), env('BENCH_ROUNDS', 3));
            result.http = http;
            console.table(http);
        }
        // optional: run only when asked for, it is no hot path of its own
        if (only === 'conditional' || process.env.BENCH_CONDITIONAL === '1') {
            result.conditional = await measureConditional(rt, env('BENCH_SECONDS', 8), env('BENCH_ROUNDS', 3));
            console.log(conditionalLine(result.conditional as Awaited<ReturnType<typeof measureConditional>>));
        }
        if (!only || only === 'events') {
            result.events = await measureFanOut(rt, env('BENCH_POLLS', 10_000), env('BENCH_HOOKS', 1000));
            console.log(JSON.stringify(result.events, null, 2));
        }
        if (only === 'floor') {
            // on request only: what our request stack adds to a state write, against the least adapter that does it
            result.floor = await measureFloor(rt, env('BENCH_SECONDS', 4), env('BENCH_ROUNDS', 5));
            console.log(JSON.stringify(result.floor, null, 2));
        }
        if (only === 'sharing') {
            // on request only: it starts two Redis clusters of its own
            result.sharing = await measureSharing(rt, env('BENCH_SECONDS', 3), env('BENCH_ROUNDS', 3));
            console.log(JSON.stringify(result.sharing, null, 2));
        }
        result.adapterRssAfterMB = Math.round(rt.adapterRss());
    } finally {
        await rt.stop();
        bare.stop();
    }
    result.seconds = Math.round((Date.now() - started) / 1000);
    const dir = join(PROJECT_ROOT, 'bench', 'results');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `${String(result.date).replace(/[:.]/g, '-')}.json`);
    writeFileSync(file, JSON.stringify(result, null, 2) + '\n');
    console.log(`adapter RSS idle ${result.adapterRssIdleMB} MB, after ${result.adapterRssAfterMB} MB, start ${result.startMs} ms; ${result.seconds} s in all; written to ${file}`);
}

void main().then(
    () => process.exit(0),
    err => {
        console.error(err);
        process.exit(1);
    },
);
