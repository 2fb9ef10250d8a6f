/*
 * What sharing with other instances costs: the read barrier of cached answers and the polling session
 * kept in the states database. `npm run bench -- --only sharing`.
 * 1. One instance on the jsonl runtime, rounds interleaved: GET state while no other instance lives,
 *    and while a sharing instance is alive (every cached answer waits for the barrier).
 * 2. On Redis behind the round-robin proxy of the cluster tests: one instance, then two. GET state
 *    through the proxy, and the time from a write to the answer of a pending poll of one session
 *    whose requests alternate between the instances (with two).
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { Storage } from '../scripts/embedded-storage';
import { startCluster } from '../test/support/cluster';
import { sharingInstance } from '../test/support/peers';
import { percentile, tracked, type BenchRuntime } from './fixture';
import { load, median, roundFigures, VALUE_ID, type LoadResult } from './http';

const PEER = 9;
const POLL_ID = '0_userdata.0.bench_shared_poll';

export interface SharingFigures {
    getState: { alone: number; withPeer: number; ratio: number; aloneP99Ms: number; withPeerP99Ms: number };
    redis?: {
        getStateOne: number;
        getStateTwo: number;
        pollOne: { p50Ms: number; p99Ms: number; lost: number };
        pollTwo: { p50Ms: number; p99Ms: number; lost: number };
    };
    skipped?: string;
}

/** Instance rest-api.9 of this version alive beside the measured one, as js-controller shows it; or gone. */
async function peer(storage: Storage, alive: boolean): Promise<void> {
    if (alive) {
        await sharingInstance(storage, PEER);
    } else {
        await storage.states.setStateAsync(`system.adapter.rest-api.${PEER}.alive`, { val: false, ack: true, from: `system.adapter.rest-api.${PEER}` });
    }
    // the measured instance hears of it through its subscription
    await delay(500);
}

const GET_STATE = { name: 'GET /v1/state/:id', path: `/v1/state/${VALUE_ID}` };

async function barrierCost(rt: BenchRuntime, seconds: number, rounds: number): Promise<SharingFigures['getState']> {
    const alone: LoadResult[] = [];
    const withPeer: LoadResult[] = [];
    for (let round = 0; round < rounds; round++) {
        await peer(rt.storage, false);
        alone.push(await load(`${rt.baseUrl}${GET_STATE.path}`, GET_STATE, seconds));
        await peer(rt.storage, true);
        withPeer.push(await load(`${rt.baseUrl}${GET_STATE.path}`, GET_STATE, seconds));
    }
    await peer(rt.storage, false);
    const figures = roundFigures(withPeer, alone);
    return { alone: figures.bareRps, withPeer: figures.rps, ratio: figures.ratio, aloneP99Ms: median(alone.map(r => r.p99)), withPeerP99Ms: figures.p99Ms };
}

/** One polling session (4.0.2's protocol): each round a poll is pending, one write, time to its answer. */
async function pollRoundTrips(baseUrl: string, storage: Storage, rounds: number): Promise<{ p50Ms: number; p99Ms: number; lost: number }> {
    const sid = `share-bench-${Date.now()}`;
    await storage.objects.setObjectAsync(POLL_ID, { type: 'state', common: { name: 'bench', type: 'number', role: 'value', read: true, write: true }, native: {} });
    await (await fetch(`${baseUrl}/v1/polling?sid=${sid}&connect&timeout=10000`)).text();
    const subscribed = await fetch(`${baseUrl}/v1/states/subscribe?sid=${sid}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ method: 'polling', pattern: POLL_ID }),
    });
    await subscribed.text();
    const times: number[] = [];
    let lost = 0;
    for (let n = 0; n < rounds; n++) {
        const answer = fetch(`${baseUrl}/v1/polling?sid=${sid}&timeout=5000`).then(res => res.text());
        // the poll is pending before the write
        await delay(30);
        const written = performance.now();
        await storage.states.setStateAsync(POLL_ID, { val: n, ack: true, from: 'system.adapter.bench.0' });
        const text = await answer;
        if (text.includes(`"val":${n}`)) {
            times.push(performance.now() - written);
        } else {
            lost++;
        }
    }
    times.sort((a, b) => a - b);
    const round = (v: number): number => Math.round(v * 10) / 10;
    return { p50Ms: round(percentile(times, 50)), p99Ms: round(percentile(times, 99)), lost };
}

async function throughProxy(instances: number, seconds: number, rounds: number): Promise<{ rps: number; poll: { p50Ms: number; p99Ms: number; lost: number } }> {
    const cluster = await startCluster(instances);
    const stopCluster = tracked('processes', () => cluster.stop());
    try {
        await cluster.storage.objects.setObjectAsync(VALUE_ID, { type: 'state', common: { name: 'bench', type: 'number', role: 'value', read: true, write: true }, native: {} });
        await cluster.storage.states.setStateAsync(VALUE_ID, { val: 1, ack: true, from: 'system.adapter.bench.0' });
        // every instance sees the others alive (their first heartbeat)
        await delay(2000);
        const runs: LoadResult[] = [];
        for (let round = 0; round < rounds; round++) {
            runs.push(await load(`${cluster.baseUrl}${GET_STATE.path}`, GET_STATE, seconds));
        }
        const poll = await pollRoundTrips(cluster.baseUrl, cluster.storage, 100);
        return { rps: Math.round(median(runs.map(r => r.rps))), poll };
    } finally {
        await stopCluster();
    }
}

export async function measureSharing(rt: BenchRuntime, seconds: number, rounds: number): Promise<SharingFigures> {
    const getState = await barrierCost(rt, seconds, rounds);
    let one;
    let two;
    try {
        one = await throughProxy(1, seconds, rounds);
        two = await throughProxy(2, seconds, rounds);
    } catch (err) {
        // the Redis part needs a redis-server binary (Debian package)
        return { getState, skipped: `Redis part: ${(err as Error).message.split('\n')[0]}` };
    }
    return { getState, redis: { getStateOne: one.rps, getStateTwo: two.rps, pollOne: one.poll, pollTwo: two.poll } };
}
