/*
 * Public routes read little before they decide, tried as an attacker would: a client announces a
 * 50 MB body, sends a few KB and waits. The answer must come without the rest being sent, and the
 * connection must be closed after it (the server keeps nothing of the rest). The app runs in this
 * process on a real database (test/support/in-process.ts) behind a loopback port.
 */
import { connect } from 'node:net';
import t from 'tap';
import { startInProcess, type InProcessApp, type InProcessHost } from '../support/in-process';
import { basic } from '../support/raw-request';

const ADMIN = basic('admin', 'iobroker');
const FIFTY_MB = 50 * 1024 * 1024;

let host: InProcessHost;
let app: InProcessApp;
let port: number;
let secret: string;
t.before(async () => {
    host = await startInProcess();
    app = await host.app({ auth: true });
    port = Number(new URL(await app.serve()).port);
    const created = await app.request('/v1/webhooks/valid', { method: 'PUT', headers: ADMIN, body: { secret: 'the-right-secret' } });
    secret = created.json.secret;
});
t.teardown(async () => {
    await app?.close();
    await host?.stop();
});

interface EarlyAnswer {
    status: number;
    headers: Record<string, string>;
    body: string;
    /** ms from the first byte sent until the answer's head arrived. */
    ms: number;
    /** The server closed the connection after answering. */
    closed: boolean;
}

/**
 * Announces `declared` bytes of body, sends `sent` of them (or, chunked, `sent` bytes without the end),
 * then only waits. Rejects when nothing comes within `timeoutMs`.
 */
function stall(path: string, { declared = FIFTY_MB, sent = 8192, headers = {} as Record<string, string>, chunked = false, timeoutMs = 1000 } = {}): Promise<EarlyAnswer> {
    return new Promise((resolve, reject) => {
        const started = Date.now();
        const socket = connect({ port, host: '127.0.0.1' });
        const framing: Record<string, string> = chunked ? { 'Transfer-Encoding': 'chunked' } : { 'Content-Length': String(declared) };
        const head = Object.entries({ Host: `127.0.0.1:${port}`, 'Content-Type': 'application/json', ...framing, ...headers })
            .map(([k, v]) => `${k}: ${v}\r\n`)
            .join('');
        let data = Buffer.alloc(0);
        let answer: EarlyAnswer | undefined;
        const timer = setTimeout(() => {
            socket.destroy();
            answer ? resolve(answer) : reject(new Error(`no answer within ${timeoutMs} ms`));
        }, timeoutMs);
        const done = (): void => {
            clearTimeout(timer);
            socket.destroy();
            if (answer) {
                resolve(answer);
            } else {
                reject(new Error('closed without an answer'));
            }
        };
        socket.on('data', chunk => {
            data = Buffer.concat([data, chunk]);
            const end = data.indexOf('\r\n\r\n');
            if (end === -1 || answer) {
                if (answer) {
                    answer.body = data.subarray(end + 4).toString('utf8');
                }
                return;
            }
            const [statusLine, ...lines] = data.subarray(0, end).toString('latin1').split('\r\n');
            const fields = Object.fromEntries(lines.map(line => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
            answer = { status: Number(statusLine.split(' ')[1]), headers: fields, body: data.subarray(end + 4).toString('utf8'), ms: Date.now() - started, closed: false };
        });
        socket.on('end', () => {
            if (answer) {
                answer.closed = true;
            }
            done();
        });
        socket.on('error', done);
        const filler = Buffer.alloc(sent, 'x');
        socket.write(`POST ${path} HTTP/1.1\r\n${head}\r\n`);
        socket.write(chunked ? Buffer.concat([Buffer.from(`${sent.toString(16)}\r\n`), filler, Buffer.from('\r\n')]) : filler);
    });
}

t.test('an unknown receiver: 404 before the body, the connection closed', async t => {
    const res = await stall('/webhooks/unknown?key=whatever');
    t.equal(res.status, 404);
    t.match(JSON.parse(res.body), { error: 'Webhook receiver not found' });
    t.ok(res.ms < 1000, `answered in ${res.ms} ms without the 50 MB`);
    t.ok(res.closed, 'closed: the rest is neither read nor kept');
});

t.test('a real receiver with a wrong or missing secret: 401 before the body', async t => {
    let res = await stall('/webhooks/valid?key=wrong-secret');
    t.equal(res.status, 401, 'wrong ?key=');
    t.ok(res.closed);
    res = await stall('/webhooks/valid');
    t.equal(res.status, 401, 'no key and no signature header');
    t.match(JSON.parse(res.body), { error: 'Wrong or missing webhook secret' });
    res = await stall('/webhooks/valid', { headers: { 'webhook-id': 'm1', 'webhook-timestamp': '1000', 'webhook-signature': 'v1,abc' } });
    t.equal(res.status, 401, 'a Standard Webhooks timestamp out of tolerance is refused before the body');
});

t.test('a real receiver: never more than its 1 MiB read (413), announced or not', async t => {
    let res = await stall(`/webhooks/valid?key=${secret}`, { declared: 2 * 1024 * 1024, sent: 64 * 1024 });
    t.equal(res.status, 413, 'the right key, 2 MiB announced: 413 without reading it');
    t.match(JSON.parse(res.body), { error: /larger than 1048576 bytes/ });
    t.ok(res.closed);
    res = await stall('/webhooks/valid', { headers: { 'X-Webhook-Signature': 'sha256=00' }, declared: FIFTY_MB });
    t.equal(res.status, 413, 'a signature can only be checked over the body: 413 for a body over the cap');
    res = await stall(`/webhooks/valid?key=${secret}`, { chunked: true, sent: 1024 * 1024 + 4096 });
    t.equal(res.status, 413, 'chunked, no length: the read stops at the cap');
    const real = await app.request(`/webhooks/valid?key=${secret}`, { method: 'POST', raw: JSON.stringify({ big: 'x'.repeat(2 * 1024 * 1024) }), headers: { 'Content-Type': 'application/json' } });
    t.equal(real.status, 413, 'a 2 MiB body sent whole');
    const ok = await app.request(`/webhooks/valid?key=${secret}`, { method: 'POST', body: { temperature: 21 } });
    t.same([ok.status, ok.json.states], [200, 1], 'a small payload still arrives');
});

t.test('/oauth/token reads at most 16 KiB', async t => {
    let res = await stall('/oauth/token', { headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
    t.equal(res.status, 413, '50 MB announced: 413 at once');
    t.ok(res.ms < 1000);
    t.ok(res.closed);
    res = await stall('/oauth/token', { chunked: true, sent: 20 * 1024 });
    t.equal(res.status, 413, 'chunked: the read stops at 16 KiB');
    const form = `grant_type=password&username=admin&password=iobroker&pad=${'x'.repeat(20 * 1024)}`;
    const whole = await app.request('/oauth/token', { method: 'POST', raw: form, headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
    t.equal(whole.status, 413, 'a 20 KiB body sent whole');
    t.match(whole.json, { error: /larger than 16384 bytes/ });
    const small = await app.request('/oauth/token', { method: 'POST', raw: 'grant_type=password&username=admin&password=iobroker', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
    t.equal(small.status, 200, 'a normal token request still works');
});

t.test('a non-public route without credentials: 401 before its body, the connection closed', async t => {
    for (const path of ['/v1/state/0_userdata.0.x', '/v1/command/setObject', '/v1/object/0_userdata.0.x', '/v1/nothing-here']) {
        const res = await stall(path);
        t.equal(res.status, 401, `${path}: 401`);
        t.ok(res.ms < 1000, `${path}: within a second`);
        t.ok(res.closed, `${path}: closed after the answer`);
    }
});
