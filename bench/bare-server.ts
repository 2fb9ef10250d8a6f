/*
 * The yardstick: a bare node:http server answering a fixed 158-byte JSON body, in its own process
 * like the adapter. Prints its port on stdout once listening. Also the bare fan-outs: long polls
 * (`/poll`, `/fire`), event streams (`/sse`, `/fire-sse?bytes=N`) and hook calls (`/fire-hooks`).
 * Given the states DB's connection (JSON, its first argument) a fire path given `on=<id>` waits for a
 * change of that state instead: the same trigger the adapters get, one write by the bench's client.
 */
import { Agent, createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';

const BODY = JSON.stringify({ val: 1764000000000, ack: true, ts: 1764000000000, q: 0, from: 'system.adapter.bench.0', user: 'system.user.admin', lc: 1764000000000, id: '0_userdata.0.bench_value1' });

// long polls for the fan-out yardstick: held until /fire answers them all
const pending: ServerResponse[] = [];
// event streams: held open until the client goes; /fire-sse writes one frame to each
const streams = new Set<ServerResponse>();

const SSE_HEADERS = { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' };

const eventJson = (): string => JSON.stringify({ id: '0_userdata.0.bench', state: { val: Date.now(), ack: true, ts: Date.now(), q: 0, from: 'system.adapter.bench.0', lc: Date.now() } });

/** One SSE frame of `bytes` bytes (the size of the adapter's frame), padded in a field of the event. */
function sseFrame(bytes: number): string {
    const frame = (pad: string): string => `id: bare.1.${Date.now()}\ndata: ${eventJson().replace(/}}$/, `,"pad":"${pad}"}}`)}\n\n`;
    return frame('x'.repeat(Math.max(0, bytes - frame('').length)));
}

/** One agent for all calls, without keep-alive, as the adapter's (src/messaging/target-guard.ts); `agent: false` made one per call. */
const hookAgent = new Agent({ keepAlive: false });

/** As the adapter delivers hooks (src/events/hook-delivery.ts): one request per hook, all at once, a connection each. */
function fireHooks(port: number, count: number): void {
    const body = eventJson();
    for (let i = 0; i < count; i++) {
        const req = request({ host: '127.0.0.1', port, path: `/h${i}`, method: 'POST', agent: hookAgent, headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), 'User-Agent': 'bare' } }, res => res.resume());
        req.on('error', () => undefined);
        req.end(body);
    }
}

// fire actions waiting for their state's change, by state id
const armed = new Map<string, () => void>();
let states: { subscribe(pattern: string): Promise<void>; destroy(): Promise<void> } | undefined;

/** Connects to the states DB as its own client; changes of armed ids fire their action (once). */
function connectStates(connection: unknown): Promise<void> {
    // the workspace's js-controller package brings it, as for the bench's own storage client
    const { Client } = require('@iobroker/db-states-redis'); // eslint-disable-line @typescript-eslint/no-require-imports
    const quiet = (): void => undefined;
    const log = { silly: quiet, debug: quiet, info: quiet, warn: quiet, error: (text: string) => console.error(`bare: ${text}`) };
    return new Promise(connected => {
        const change = (id: string): void => {
            const fire = armed.get(id);
            armed.delete(id);
            fire?.();
        };
        states = new Client({ connection, logger: log, hostname: 'bench-bare', connected, change });
    });
}

/** Arms `fire` for the next change of `id`; answers once the subscription is in place. */
function arm(id: string, fire: () => void, res: ServerResponse): void {
    if (!states) {
        res.writeHead(400).end('no states DB (no connection given as the first argument)');
        return;
    }
    armed.set(id, fire);
    states.subscribe(id).then(
        () => res.end('armed'),
        (error: Error) => res.writeHead(500).end(String(error)),
    );
}

/** The action of a fire path, or undefined for any other. */
function fireAction(url: URL): (() => void) | undefined {
    if (url.pathname === '/fire') {
        return () => {
            const event = eventJson();
            for (const poll of pending.splice(0)) {
                poll.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': Buffer.byteLength(event) });
                poll.end(event);
            }
        };
    }
    if (url.pathname === '/fire-sse') {
        const bytes = Number(url.searchParams.get('bytes') ?? 0);
        return () => {
            const frame = sseFrame(bytes);
            for (const stream of streams) {
                stream.write(frame);
            }
        };
    }
    if (url.pathname === '/fire-hooks') {
        const port = Number(url.searchParams.get('port'));
        const count = Number(url.searchParams.get('count'));
        return () => fireHooks(port, count);
    }
    return undefined;
}

/** The special paths; every other request gets BODY. Parsed only for them: the hot path stays as bare as it was. */
function special(req: IncomingMessage, res: ServerResponse): boolean {
    const path = req.url ?? '';
    if (path === '/poll') {
        pending.push(res);
        return true;
    }
    if (path === '/sse') {
        res.writeHead(200, SSE_HEADERS);
        res.flushHeaders();
        streams.add(res);
        res.on('close', () => streams.delete(res));
        return true;
    }
    if (!path.startsWith('/fire')) {
        return false;
    }
    const url = new URL(path, 'http://bare');
    const fire = fireAction(url);
    const on = url.searchParams.get('on');
    if (fire && on) {
        arm(on, fire, res);
        return true;
    }
    fire?.();
    return false;
}

const server = createServer((req, res) => {
    req.resume();
    if (special(req, res)) {
        return;
    }
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(BODY) });
    res.end(BODY);
});
// stopped by SIGTERM: everything closes and the process ends by itself, so that a CPU profile (--cpu-prof) is written
process.once('SIGTERM', () => {
    server.closeAllConnections();
    server.close();
    void states?.destroy();
});
server.keepAliveTimeout = 120_000;
server.requestTimeout = 0;
server.headersTimeout = 0;
const connection = process.argv[2];
(connection ? connectStates(JSON.parse(connection)) : Promise.resolve()).then(() =>
    // 10,000 polls connect at once: with Node's accept queue of 511 some were dropped, retried after
    // the write and counted as lost (each loss held its round for the 60 s deadline, and left bare fewer answers)
    server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, () => console.log(JSON.stringify({ port: (server.address() as { port: number }).port, bytes: Buffer.byteLength(BODY) }))),
);
