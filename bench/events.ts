/*
 * Event fan-out: N pending long polls and M URL hooks on one pattern, one write reaches all.
 * `node build/bench/events.js [polls] [hooks]` prints the figures as JSON. Loopback only.
 */
import { createServer, request, Agent, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { percentile, startRuntime, type BenchRuntime } from './fixture';

const ID = '0_userdata.0.bench';

async function inBatches(count: number, size: number, task: (i: number) => Promise<unknown>): Promise<void> {
    for (let start = 0; start < count; start += size) {
        await Promise.all(Array.from({ length: Math.min(size, count - start) }, (_, k) => task(start + k)));
    }
}

function post(agent: Agent, url: string, body: unknown): Promise<number> {
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

async function pollFanOut(rt: BenchRuntime, polls: number): Promise<Record<string, number>> {
    const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
    await inBatches(polls, 200, i => post(agent, `${rt.baseUrl}/v1/states/subscribe?sid=s${i}`, { method: 'polling', pattern: ID }));
    const rssBefore = rt.adapterRss();
    let written = 0;
    const latencies: number[] = [];
    // raw sockets: a full HTTP client per poll would measure the client more than the adapter
    const sockets: Socket[] = [];
    const answered = Array.from({ length: polls }, (_, i) =>
        new Promise<void>((resolve, reject) => {
            const socket = connect({ host: rt.host, port: rt.port }, () =>
                socket.write(`GET /v1/polling?sid=s${i}&timeout=60000 HTTP/1.1\r\nHost: bench\r\n\r\n`),
            );
            sockets.push(socket);
            socket.once('data', () => {
                latencies.push(Date.now() - written);
                resolve();
            });
            socket.on('error', reject);
        }),
    );
    await new Promise(r => setTimeout(r, 3000 + polls / 10));
    const rssPending = rt.adapterRss();
    written = Date.now();
    await rt.storage.states.setStateAsync(ID, { val: written, ack: true, from: 'system.adapter.bench.0' });
    await Promise.all(answered);
    sockets.forEach(socket => socket.destroy());
    agent.destroy();
    latencies.sort((a, b) => a - b);
    return { polls, addedRssMB: Math.round(rssPending - rssBefore), p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99), maxMs: latencies.at(-1) ?? 0 };
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
    const agent = new Agent({ keepAlive: true, maxSockets: 50 });
    await inBatches(hooks, 50, i => post(agent, `${rt.baseUrl}/v1/states/subscribe`, { url: `http://127.0.0.1:${port}/h${i}`, pattern: ID }));
    agent.destroy();
    const started = Date.now();
    const writes = 5;
    for (let n = 0; n < writes; n++) {
        await rt.storage.states.setStateAsync(ID, { val: n, ack: true, from: 'system.adapter.bench.0' });
        if (n === 2) {
            // the receiver goes away for three seconds; retries must deliver what it missed
            receiver.close();
            receiver.closeAllConnections();
            await new Promise(r => setTimeout(r, 3000));
            await new Promise<void>(r => receiver.listen(port, '127.0.0.1', r));
        }
    }
    const expected = hooks * writes;
    while (delivered < expected && Date.now() - started < 120_000) {
        await new Promise(r => setTimeout(r, 100));
    }
    receiver.close();
    return { hooks, expected, delivered, lost: expected - delivered, seconds: Math.round((Date.now() - started) / 100) / 10 };
}

async function main(): Promise<void> {
    const polls = Number(process.argv[2] ?? 10_000);
    const hooks = Number(process.argv[3] ?? 1000);
    const rt = await startRuntime({ allowLocalTargets: true, hookRetryMs: 200, hookMaxFailures: 20, hookTimeout: 5000, checkInterval: 0 });
    try {
        await rt.storage.objects.setObjectAsync(ID, { type: 'state', common: { name: 'bench', type: 'number', role: 'value', read: true, write: true }, native: {} });
        const result = { longPolling: await pollFanOut(rt, polls), urlHooks: await hookFanOut(rt, hooks), adapterRssMB: Math.round(rt.adapterRss()) };
        console.log(JSON.stringify(result, null, 2));
    } finally {
        await rt.stop();
    }
}

void main().then(() => process.exit(0), err => {
    console.error(err);
    process.exit(1);
});
