/*
 * Resource limits against real storage: slow clients, caps on long-polling sessions, URL hooks and
 * event streams (429 with Retry-After beyond), the body limit while a body streams in.
 */
import { createServer, request, type Server } from 'node:http';
import { connect } from 'node:net';
import t from 'tap';
import { createState, createUser } from './support/iobroker';
import { startInProcess, type InProcessApp, type InProcessHost } from './support/in-process';

let host: InProcessHost;
let app: InProcessApp;
/** The app's real loopback server: slow clients and streamed bodies need a socket. */
let baseUrl = '';
let receiver: Server;
let receiverUrl = '';
t.before(async () => {
    host = await startInProcess();
    app = await host.app({
        pollSessionsPerUser: 2,
        pollSessionsTotal: 3,
        hooksPerUser: 1,
        hooksTotal: 2,
        sseStreamsPerUser: 1,
        sseStreamsTotal: 5,
        bodyLimit: 4096,
        headersTimeout: 2000,
        requestTimeout: 4000,
        auth: true,
    });
    baseUrl = await app.serve();
    await createUser(host.storage, 'other', { state: { read: true, write: true } }, 'o');
    await createState(host.storage, '0_userdata.0.limited', { type: 'string' }, 'kept');
    receiver = createServer((req, res) => {
        req.resume();
        req.on('end', () => res.end('{}'));
    });
    await new Promise<void>(resolve => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}`;
});
t.teardown(async () => {
    receiver?.close();
    await app?.close();
    await host?.stop();
});

const admin = { Authorization: `Basic ${Buffer.from('admin:iobroker').toString('base64')}` };
const other = { Authorization: `Basic ${Buffer.from('other:o').toString('base64')}` };

t.test('long-polling sessions are capped per user and in total', async t => {
    for (const sid of ['a1', 'a2']) {
        t.equal((await app.request(`/v1/polling?sid=${sid}&connect`, { headers: admin })).status, 200);
    }
    const third = await app.request('/v1/polling?sid=a3&connect', { headers: admin });
    t.equal(third.status, 429);
    t.ok(third.headers['retry-after'], 'Retry-After');
    t.match(third.json, { error: /Too many/ });
    t.equal(
        (await app.request('/v1/polling?sid=a1&connect', { headers: admin })).status,
        200,
        'existing sessions go on',
    );
    t.equal((await app.request('/v1/polling?sid=o1&connect', { headers: other })).status, 200, 'another user has room');
    t.equal((await app.request('/v1/polling?sid=o2&connect', { headers: other })).status, 429, 'the total is reached');
    const subscribe = await app.request('/v1/states/subscribe?sid=o3', {
        method: 'POST',
        body: { method: 'polling', pattern: '0_userdata.0.*' },
        headers: other,
    });
    t.equal(subscribe.status, 429, 'subscribing cannot create one either');
});

t.test('URL hooks are capped per user and in total', async t => {
    const hook = (path: string, headers: Record<string, string>) =>
        app.request('/v1/states/subscribe', {
            method: 'POST',
            body: { url: `${receiverUrl}/${path}`, pattern: '0_userdata.0.*' },
            headers,
        });
    t.equal((await hook('a', admin)).status, 200);
    const second = await hook('b', admin);
    t.equal(second.status, 429);
    t.ok(second.headers['retry-after']);
    t.equal((await hook('a', admin)).status, 200, 'the same URL again is no new hook');
    t.equal((await hook('c', other)).status, 200, 'another user has room');
    t.equal((await hook('d', other)).status, 429);
});

t.test('event streams are capped per user', async t => {
    const open = () =>
        new Promise<{ status: number; close(): void }>((resolve, reject) => {
            const req = request(`${baseUrl}/v1/events?pattern=0_userdata.0.*`, { headers: admin }, res =>
                resolve({ status: res.statusCode ?? 0, close: () => req.destroy() }),
            );
            req.on('error', reject);
            req.end();
        });
    const first = await open();
    t.equal(first.status, 200);
    const second = await open();
    t.equal(second.status, 429);
    first.close();
    second.close();
});

t.test('the body limit applies while a chunked body streams in, and nothing is stored', async t => {
    const status = await new Promise<number>((resolve, reject) => {
        const req = request(
            `${baseUrl}/v1/state/0_userdata.0.limited`,
            {
                method: 'PATCH',
                headers: { ...admin, 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' },
            },
            res => {
                res.resume();
                resolve(res.statusCode ?? 0);
            },
        );
        req.on('error', () => resolve(-1));
        req.write('{"val":"');
        let sent = 0;
        const more = (): void => {
            if (sent > 64 * 1024 || req.destroyed) {
                req.end('"}');
                return;
            }
            sent += 1024;
            req.write('x'.repeat(1024), () => setImmediate(more));
        };
        more();
        req.on('close', () => reject(new Error('closed before an answer')));
    }).catch(() => -1);
    t.ok(status === 413 || status === -1, `413 or the connection cut (${status})`);
    t.equal((await host.storage.states.getStateAsync('0_userdata.0.limited')).val, 'kept');
});

t.test('a client that never finishes its headers loses the connection (slowloris)', async t => {
    const started = Date.now();
    const ended = await new Promise<string>(resolve => {
        const socket = connect(Number(new URL(baseUrl).port), '127.0.0.1', () =>
            socket.write('GET /v1/state/0_userdata.0.limited HTTP/1.1\r\nHost: x\r\n'),
        );
        let answer = '';
        // one more header line every 500 ms, never the blank line that ends them
        const drip = setInterval(() => socket.writable && socket.write(`X-Drip: ${Date.now()}\r\n`), 500);
        socket.on('data', d => (answer += d));
        socket.on('close', () => {
            clearInterval(drip);
            resolve(answer);
        });
    });
    const took = Date.now() - started;
    t.ok(took < 8000, `closed after ${took} ms (headers timeout 2 s)`);
    t.match(ended, /^HTTP\/1.1 408|^$/, 'a 408 or a closed socket');
});

t.test(
    'room comes back at once: a session its client emptied, a deleted hook and a closed stream stop counting',
    async t => {
        // storage of its own: hooks are shared through the database, and the tests above left some
        const own = await startInProcess();
        await createState(own.storage, '0_userdata.0.limited', { type: 'string' }, 'kept');
        const limited = await own.app({
            pollSessionsPerUser: 2,
            pollSessionsTotal: 2,
            hooksPerUser: 1,
            hooksTotal: 1,
            sseStreamsPerUser: 1,
            sseStreamsTotal: 1,
        });
        const url = await limited.serve();
        t.teardown(async () => {
            await limited.close();
            await own.stop();
        });
        const subscribe = (sid: string) =>
            limited.request(`/v1/states/subscribe?sid=${sid}`, {
                method: 'POST',
                body: { method: 'polling', pattern: '0_userdata.0.limited' },
            });
        for (const round of [1, 2, 3]) {
            t.equal((await subscribe(`r${round}a`)).status, 200, `round ${round}: a fresh session`);
            t.equal((await subscribe(`r${round}b`)).status, 200, `round ${round}: a second one`);
            t.equal(
                (await subscribe(`r${round}c`)).status,
                429,
                `round ${round}: the bound stays while both hold a pattern`,
            );
            for (const sid of [`r${round}a`, `r${round}b`]) {
                const gone = await limited.request(`/v1/states/unsubscribe?sid=${sid}`, {
                    method: 'POST',
                    body: { method: 'polling' },
                });
                t.equal(gone.status, 200);
            }
        }
        // a session that only waited (its poll ended with nothing subscribed) holds nothing either
        t.equal((await limited.request('/v1/polling?sid=w1&connect')).status, 200);
        t.equal((await limited.request('/v1/polling?sid=w2&connect')).status, 200);
        t.equal(
            (await limited.request('/v1/polling?sid=w3&connect')).status,
            429,
            'two connected sessions fill the room',
        );
        t.equal(
            (await limited.request('/v1/polling?sid=w1&timeout=1000')).text,
            '',
            'a poll that ends without an event',
        );
        t.equal((await limited.request('/v1/polling?sid=w3&connect')).status, 200, 'its session made room');
        const again = await limited.request('/v1/polling?sid=w1&timeout=1000');
        t.equal(again.status, 429, 'its sid, polling again, is a new session: the room is taken');

        const hook = (path: string) =>
            limited.request('/v1/states/subscribe', {
                method: 'POST',
                body: { url: `${receiverUrl}/${path}`, pattern: '0_userdata.0.*' },
            });
        t.equal((await hook('first')).status, 200);
        t.equal((await hook('second')).status, 429, 'one hook per user');
        const removed = await limited.request('/v1/states/unsubscribe', {
            method: 'POST',
            body: { url: `${receiverUrl}/first` },
        });
        t.equal(removed.status, 200);
        t.equal((await hook('second')).status, 200, 'the deleted hook made room');

        const open = () =>
            new Promise<{ status: number; close(): void }>((resolve, reject) => {
                const req = request(`${url}/v1/events?pattern=0_userdata.0.*`, res =>
                    resolve({ status: res.statusCode ?? 0, close: () => req.destroy() }),
                );
                req.on('error', reject);
                req.end();
            });
        const first = await open();
        t.equal(first.status, 200);
        first.close();
        await new Promise(r => setTimeout(r, 100));
        const second = await open();
        t.equal(second.status, 200, 'a closed stream made room');
        second.close();
    },
);
