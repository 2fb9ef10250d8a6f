/*
 * A dashboard re-reading the same 100 states again and again, as wall panels and Grafana-like
 * pollers do: unconditional reads against reads with If-None-Match (the ETag of the last answer per
 * id), while a writer changes 5 of them every 100 ms. Measures req/s and bytes on the wire per
 * answer (status line, headers and body). Optional: `npm run bench -- --only conditional`.
 */
import { Agent, request } from 'node:http';
import { setInterval as every } from 'node:timers/promises';
import type { BenchRuntime } from './fixture';
import { median } from './http';

const PREFIX = '0_userdata.0.bench_dashboard.s';
const STATES = 100;
const CLIENTS = 10;

export interface ConditionalFigures {
    mode: 'unconditional' | 'if-none-match';
    rps: number;
    bytesPerRequest: number;
    totalMB: number;
    notModifiedShare: number;
}

interface Answer {
    status: number;
    etag?: string;
    bytes: number;
}

function get(agent: Agent, base: URL, path: string, etag: string | undefined): Promise<Answer> {
    return new Promise((resolve, reject) => {
        const req = request({ agent, host: base.hostname, port: base.port, path, headers: etag ? { 'If-None-Match': etag } : {} }, res => {
            // what the client receives: the status line, the headers as sent, then the body
            let bytes = 15 + (res.statusMessage?.length ?? 0);
            for (let i = 0; i < res.rawHeaders.length; i += 2) {
                bytes += res.rawHeaders[i].length + res.rawHeaders[i + 1].length + 4;
            }
            res.on('data', (chunk: Buffer) => (bytes += chunk.length));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, etag: res.headers.etag, bytes }));
        });
        req.on('error', reject);
        req.end();
    });
}

async function run(rt: BenchRuntime, conditional: boolean, seconds: number): Promise<ConditionalFigures> {
    const base = new URL(rt.baseUrl);
    const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });
    const tags = new Map<string, string>();
    let requests = 0;
    let bytes = 0;
    let notModified = 0;
    const until = Date.now() + seconds * 1000;
    // another client changes 5 of the states every 100 ms while the clients read
    const stopWriter = new AbortController();
    const writer = (async () => {
        let round = 0;
        for await (const _ of every(100, undefined, { signal: stopWriter.signal })) {
            round++;
            for (let i = 0; i < 5; i++) {
                void rt.storage.states.setStateAsync(`${PREFIX}${(round * 5 + i) % STATES}`, { val: round, ack: true, from: 'system.adapter.bench.0' });
            }
        }
    })().catch((err: Error) => {
        if (err.name !== 'AbortError') {
            throw err;
        }
    });
    const client = async (offset: number): Promise<void> => {
        for (let n = offset; Date.now() < until; n++) {
            const path = `/v1/state/${PREFIX}${n % STATES}`;
            const answer = await get(agent, base, path, conditional ? tags.get(path) : undefined);
            requests++;
            bytes += answer.bytes;
            if (answer.status === 304) {
                notModified++;
            } else if (answer.etag) {
                tags.set(path, answer.etag);
            }
        }
    };
    const started = performance.now();
    let elapsed: number;
    try {
        await Promise.all(Array.from({ length: CLIENTS }, (_, i) => client(i * 10)));
        elapsed = (performance.now() - started) / 1000;
    } finally {
        // also when a client failed: the writer would go on for ever
        stopWriter.abort();
        await writer;
        agent.destroy();
    }
    return {
        mode: conditional ? 'if-none-match' : 'unconditional',
        rps: Math.round(requests / elapsed),
        bytesPerRequest: Math.round(bytes / Math.max(requests, 1)),
        totalMB: Math.round((bytes / 1e6) * 10) / 10,
        notModifiedShare: Math.round((notModified / Math.max(requests, 1)) * 100) / 100,
    };
}

/** Unconditional and conditional rounds interleaved; the median of each. */
export async function measureConditional(rt: BenchRuntime, seconds: number, rounds: number): Promise<ConditionalFigures[]> {
    for (let i = 0; i < STATES; i++) {
        const id = `${PREFIX}${i}`;
        await rt.storage.objects.setObjectAsync(id, { _id: id, type: 'state', common: { name: `dashboard ${i}`, type: 'number', role: 'value', read: true, write: true }, native: {} } as never);
        await rt.storage.states.setStateAsync(id, { val: i * 1.5, ack: true, from: 'system.adapter.bench.0', q: 0 });
    }
    const byMode: Record<string, ConditionalFigures[]> = { unconditional: [], 'if-none-match': [] };
    for (let r = 0; r < rounds; r++) {
        for (const conditional of [false, true]) {
            const figures = await run(rt, conditional, seconds);
            byMode[figures.mode].push(figures);
        }
    }
    // the round with the median req/s of each mode
    return Object.values(byMode).map(list => list.find(f => f.rps === median(list.map(x => x.rps)))!);
}

/** The result line of the scenario, as bench/README.md describes it. */
export function conditionalLine(figures: ConditionalFigures[]): string {
    return figures.map(f => `conditional ${f.mode}: ${f.rps} req/s, ${f.bytesPerRequest} B/request, ${f.totalMB} MB, ${Math.round(f.notModifiedShare * 100)} % 304`).join('\n');
}
