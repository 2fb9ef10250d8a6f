/*
 * Event fan-out: N pending long polls and M URL hooks on one pattern, one write reaches all.
 * Part of `npm run bench` (bench/run.ts). Loopback only.
 */
import { createServer, request, Agent, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { percentile, within, type BenchAdapter, type BenchRuntime } from './fixture';
import type { Storage } from '../scripts/embedded-storage';
import { startBare } from './http';

const ID = '0_userdata.0.bench';

const round1 = (n: number): number => Math.round(n * 10) / 10;

export async function inBatches(count: number, size: number, task: (i: number) => Promise<unknown>): Promise<void> {
    for (let start = 0; start < count; start += size) {
        await Promise.all(Array.from({ length: Math.min(size, count - start) }, (_, k) => task(start + k)));
    }
}

export function post(agent: Agent, url: string, body: unknown): Promise<number> {
    return new Promise((resolve, reject) => {
        const text = JSON.stringify(body);
        const req = request(url, { method: 'POST', agent, headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) } }, res => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
        req.end(text);
    });
}

/** Connections opened at a time while the polls are set up. */
const CONNECT_BATCH = 500;

/** After the write, how long the fan-out may take before the polls still waiting count as lost. */
const ANSWER_DEADLINE_MS = 60_000;

/**
 * Holds one raw-socket request per poll; `fire` triggers the event, the result says when each answer
 * arrived. A poll that is closed without an answer, or still waits at the deadline, counts as lost
 * instead of holding up the whole run.
 */
async function holdPolls(host: string, port: number, paths: string[], fire: () => Promise<unknown>): Promise<Record<string, number>> {
    let fired = 0;
    let early = 0;
    const latencies: number[] = [];
    // raw sockets: a full HTTP client per poll would measure the client more than the server
    const sockets: Socket[] = [];
    const answered: Promise<void>[] = [];
    // in batches, each connected before the next: no target's accept queue decides who is held when the write comes
    await inBatches(paths.length, CONNECT_BATCH, async i => {
        let connected!: () => void;
        const open = new Promise<void>(resolve => (connected = resolve));
        answered.push(
            new Promise<void>(resolve => {
                const socket = connect({ host, port }, () => {
                    socket.write(`GET ${paths[i]} HTTP/1.1\r\nHost: bench\r\n\r\n`);
                    connected();
                });
                sockets.push(socket);
                socket.once('data', () => {
                    if (fired) {
                        latencies.push(Date.now() - fired);
                    } else {
                        early++;
                    }
                    resolve();
                });
                socket.once('close', () => {
                    connected();
                    resolve();
                });
                socket.on('error', () => undefined);
            }),
        );
        await open;
    });
    await delay(3000 + paths.length / 10);
    fired = Date.now();
    await fire();
    await within(Promise.all(answered), ANSWER_DEADLINE_MS);
    sockets.forEach(socket => socket.destroy());
    latencies.sort((a, b) => a - b);
    const lost = paths.length - early - latencies.length;
    return { p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99), maxMs: latencies.at(-1) ?? 0, answeredEarly: early, lost };
}

/** The write that starts a fan-out: by the bench's js-controller client, as any adapter's write. */
export function writeTrigger(storage: Storage, id: string): Promise<unknown> {
    return storage.states.setStateAsync(id, { val: Date.now(), ack: true, from: 'system.adapter.bench.0' });
}

/** Has a fire path of the bare server wait for the next change of `id`. */
export async function armBare(firePath: string, id: string): Promise<void> {
    const url = new URL(firePath);
    url.searchParams.set('on', id);
    const res = await fetch(url);
    if (!res.ok) {
        throw new Error(`bare server: ${res.status} ${await res.text()}`);
    }
    await res.arrayBuffer();
}

/** `polls` sessions subscribed to `id` (4.0.2's protocol), each with a pending poll; one write answers them all. */
export async function pollFanOut(target: BenchAdapter, storage: Storage, polls: number, id = ID, sidPrefix = 's'): Promise<Record<string, number>> {
    await storage.objects.setObjectAsync(id, { type: 'state', common: { name: 'bench', type: 'number', role: 'value', read: true, write: true }, native: {} });
    const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
    await inBatches(polls, 200, i => post(agent, `${target.baseUrl}/v1/states/subscribe?sid=${sidPrefix}${i}`, { method: 'polling', pattern: id }));
    agent.destroy();
    const rssBefore = target.rss();
    let rssPending = 0;
    const paths = Array.from({ length: polls }, (_, i) => `/v1/polling?sid=${sidPrefix}${i}&timeout=60000`);
    const figures = await holdPolls(target.host, target.port, paths, () => {
        rssPending = target.rss();
        return writeTrigger(storage, id);
    });
    return { polls, addedRssMB: round1(rssPending - rssBefore), ...figures };
}

type Bare = Awaited<ReturnType<typeof startBare>>;

/**
 * The same fan-out on the bare node:http server: what this machine allows at all. It answers on a
 * change of `id`, written as for the adapters: the trigger costs both sides the same. A server of its own
 * unless `running` is given.
 */
export async function bareFanOut(polls: number, storage: Storage, id = `${ID}_bare`, running?: Bare): Promise<Record<string, number>> {
    const bare = running ?? (await startBare(storage));
    try {
        const { hostname, port } = new URL(bare.baseUrl);
        await armBare(`${bare.baseUrl}/fire`, id);
        const rssBefore = bare.rss();
        let rssPending = 0;
        const figures = await holdPolls(hostname, Number(port), Array(polls).fill('/poll'), () => {
            rssPending = bare.rss();
            return writeTrigger(storage, id);
        });
        return { polls, addedRssMB: round1(rssPending - rssBefore), ...figures };
    } finally {
        if (!running) {
            bare.stop();
        }
    }
}

async function hookFanOut(rt: BenchRuntime, hooks: number): Promise<Record<string, number>> {
    let delivered = 0;
    const receiver: Server = createServer((req, res) => {
        let body = '';
        req.on('data', c => (body += c));
        req.on('end', () => {
            if (body.includes('"state"')) {
                delivered++;
            }
            res.end();
        });
    });
    await new Promise<void>(r => receiver.listen(0, '127.0.0.1', r));
    const port = (receiver.address() as { port: number }).port;
    let expected = 0;
    let started = 0;
    try {
        const agent = new Agent({ keepAlive: true, maxSockets: 50 });
        await inBatches(hooks, 50, i => post(agent, `${rt.baseUrl}/v1/states/subscribe`, { url: `http://127.0.0.1:${port}/h${i}`, pattern: ID }));
        agent.destroy();
        started = Date.now();
        const writes = 5;
        for (let n = 0; n < writes; n++) {
            await rt.storage.states.setStateAsync(ID, { val: n, ack: true, from: 'system.adapter.bench.0' });
            if (n === 2) {
                // the receiver goes away for three seconds; retries must deliver what it missed
                receiver.close();
                receiver.closeAllConnections();
                await delay(3000);
                await new Promise<void>(r => receiver.listen(port, '127.0.0.1', r));
            }
        }
        expected = hooks * writes;
        while (delivered < expected && Date.now() - started < 120_000) {
            await delay(100);
        }
    } finally {
        // also when a write failed: a listening receiver would keep the bench alive
        receiver.close();
        receiver.closeAllConnections();
    }
    return { hooks, expected, delivered, lost: expected - delivered, seconds: Math.round((Date.now() - started) / 100) / 10 };
}

export async function measureFanOut(rt: BenchRuntime, polls: number, hooks: number): Promise<Record<string, unknown>> {
    const longPolling = await pollFanOut(rt.ours, rt.storage, polls);
    const bareLongPolling = await bareFanOut(polls, rt.storage);
    return { longPolling, bareLongPolling, urlHooks: await hookFanOut(rt, hooks) };
}
