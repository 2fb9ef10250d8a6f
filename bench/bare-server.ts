/*
 * The yardstick: a bare node:http server answering a fixed 158-byte JSON body, in its own process
 * like the adapter. Prints its port on stdout once listening.
 */
import { createServer, type ServerResponse } from 'node:http';

const BODY = JSON.stringify({ val: 1764000000000, ack: true, ts: 1764000000000, q: 0, from: 'system.adapter.bench.0', user: 'system.user.admin', lc: 1764000000000, id: '0_userdata.0.bench_value1' });

// long polls for the fan-out yardstick: held until /fire answers them all
const pending: ServerResponse[] = [];

const server = createServer((req, res) => {
    req.resume();
    if (req.url === '/poll') {
        pending.push(res);
        return;
    }
    if (req.url === '/fire') {
        const event = JSON.stringify({ id: '0_userdata.0.bench', state: { val: Date.now(), ack: true, ts: Date.now(), q: 0, from: 'system.adapter.bench.0', lc: Date.now() } });
        for (const poll of pending.splice(0)) {
            poll.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': Buffer.byteLength(event) });
            poll.end(event);
        }
    }
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(BODY) });
    res.end(BODY);
});
server.keepAliveTimeout = 120_000;
server.requestTimeout = 0;
server.headersTimeout = 0;
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: (server.address() as { port: number }).port, bytes: Buffer.byteLength(BODY) })));
