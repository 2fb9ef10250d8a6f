/*
 * Burst delivery: `sessions` long-polling sessions (4.0.2's protocol: one event per poll, poll again
 * at once) on one state, and `writes` writes by another js-controller client as fast as it can.
 * Counts what arrives, how fast, and how long the writes took next to the same writes with nobody
 * listening (delivery must not slow the writer). Raw sockets, so the client costs little.
 */
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import type { Storage } from '../scripts/embedded-storage';
import type { BenchAdapter } from './fixture';

export interface BurstFigures {
    sessions: number;
    writes: number;
    expected: number;
    delivered: number;
    lost: number;
    /** Events delivered per second, from the first write to the last event. */
    eventsPerSecond: number;
    writerMs: number;
    /** The same writes to a state nobody listens to. */
    writerAloneMs: number;
}

const DEADLINE_MS = 60_000;
/** After the writes, this long without an event ends the wait: a target that drops events (4.0.2) sends no more. */
const QUIET_MS = 5_000;
const WRITE_CONCURRENCY = 20;

function subscribe(agent: Agent, target: BenchAdapter, sid: string, id: string): Promise<void> {
    return new Promise((resolve, reject) => {
        const body = JSON.stringify({ method: 'polling', pattern: id });
        const req = request(`${target.baseUrl}/v1/states/subscribe?sid=${sid}`, { method: 'POST', agent, headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } }, res => {
            res.resume();
            res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`subscribe: ${res.statusCode}`))));
        });
        req.on('error', reject);
        req.end(body);
    });
}

/** One complete HTTP answer at the start of `buffer` (Content-Length or chunked), or undefined while incomplete. */
function takeAnswer(buffer: Buffer): { body: string; used: number } | undefined {
    const end = buffer.indexOf('\r\n\r\n');
    if (end === -1) {
        return undefined;
    }
    const head = buffer.subarray(0, end).toString('latin1');
    let at = end + 4;
    if (!/transfer-encoding:\s*chunked/i.test(head)) {
        const length = Number(/content-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
        return buffer.length < at + length ? undefined : { body: buffer.subarray(at, at + length).toString('utf8'), used: at + length };
    }
    const parts: Buffer[] = [];
    for (;;) {
        const lineEnd = buffer.indexOf('\r\n', at);
        if (lineEnd === -1) {
            return undefined;
        }
        const size = parseInt(buffer.subarray(at, lineEnd).toString('latin1'), 16);
        if (buffer.length < lineEnd + 2 + size + 2) {
            return undefined;
        }
        parts.push(buffer.subarray(lineEnd + 2, lineEnd + 2 + size));
        at = lineEnd + 2 + size + 2;
        if (size === 0) {
            return { body: Buffer.concat(parts).toString('utf8'), used: at };
        }
    }
}

/** One session's poll loop on a keep-alive socket; `onEvent` per event received. */
function pollLoop(target: BenchAdapter, sid: string, onEvent: () => void): Socket {
    const socket = connect({ host: target.host, port: target.port });
    const ask = (): boolean => socket.write(`GET /v1/polling?sid=${sid}&timeout=30000 HTTP/1.1\r\nHost: bench\r\n\r\n`);
    let buffer = Buffer.alloc(0);
    socket.on('connect', ask);
    socket.on('data', chunk => {
        buffer = buffer.length ? Buffer.concat([buffer, chunk]) : chunk;
        for (;;) {
            const answer = takeAnswer(buffer);
            if (!answer) {
                return;
            }
            buffer = buffer.subarray(answer.used);
            // events only: `_`, an empty timeout answer, an overflow notice or a disconnect are none
            if (answer.body.startsWith('{"id"')) {
                onEvent();
            }
            ask();
        }
    });
    socket.on('error', () => undefined);
    return socket;
}

async function timedWrites(storage: Storage, id: string, writes: number): Promise<number> {
    const started = performance.now();
    for (let n = 0; n < writes; n += WRITE_CONCURRENCY) {
        await Promise.all(Array.from({ length: Math.min(WRITE_CONCURRENCY, writes - n) }, (_, k) => storage.states.setStateAsync(id, { val: n + k, ack: true, from: 'system.adapter.bench.0' })));
    }
    return performance.now() - started;
}

export async function measureBurst(target: BenchAdapter, storage: Storage, sessions: number, writes: number, id: string): Promise<BurstFigures> {
    const common = { name: 'burst', type: 'number', role: 'value', read: true, write: true } as const;
    await storage.objects.setObjectAsync(id, { type: 'state', common, native: {} });
    await storage.objects.setObjectAsync(`${id}_alone`, { type: 'state', common, native: {} });
    const writerAloneMs = await timedWrites(storage, `${id}_alone`, writes);
    const agent = new Agent({ keepAlive: true, maxSockets: 20 });
    const sids = Array.from({ length: sessions }, (_, i) => `${id.split('.').pop()}_${i}`);
    await Promise.all(sids.map(sid => subscribe(agent, target, sid, id)));
    agent.destroy();
    let delivered = 0;
    let last = 0;
    const sockets = sids.map(sid =>
        pollLoop(target, sid, () => {
            delivered++;
            last = performance.now();
        }),
    );
    // every session has its first poll pending before the first write
    await delay(1000);
    const expected = sessions * writes;
    const started = performance.now();
    const writerMs = await timedWrites(storage, id, writes);
    while (delivered < expected && performance.now() - started < DEADLINE_MS && performance.now() - Math.max(last, started + writerMs) < QUIET_MS) {
        await delay(50);
    }
    sockets.forEach(s => s.destroy());
    return {
        sessions,
        writes,
        expected,
        delivered,
        lost: expected - delivered,
        eventsPerSecond: Math.round(delivered / (((last || performance.now()) - started) / 1000)),
        writerMs: Math.round(writerMs),
        writerAloneMs: Math.round(writerAloneMs),
    };
}
