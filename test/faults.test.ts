/*
 * Storage faults and shutdown against real storage: the in-process DB servers stop and return
 * (storage.bounce), the adapter process is stopped while clients wait on it.
 */
import { createServer, request, type Server } from 'node:http';
import t from 'tap';
import { startIobroker, type IobFixture } from './support/iobroker';

let iob: IobFixture;
let receiver: Server;
let hookBodies: string[] = [];
t.before(async () => {
    receiver = createServer((req, res) => {
        let body = '';
        req.on('data', c => (body += c));
        req.on('end', () => {
            hookBodies.push(body);
            res.end();
        });
    });
    await new Promise<void>(resolve => receiver.listen(0, '127.0.0.1', resolve));
    iob = await startIobroker({ native: { allowLocalTargets: true, hookRetryMs: 100, hookMaxFailures: 50, checkInterval: 0 } });
    await iob.createState('0_userdata.0.f1', { type: 'number' }, 0);
});
t.teardown(async () => {
    await iob?.stop();
    receiver?.close();
});

const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms));
const hookUrl = () => `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
const write = (val: number) => iob.storage.states.setStateAsync('0_userdata.0.f1', { val, ack: true, from: 'system.adapter.other.0' });

async function until<T>(probe: () => Promise<T>, done: (value: T) => boolean, ms: number): Promise<T> {
    const end = Date.now() + ms;
    let value = await probe();
    while (!done(value) && Date.now() < end) {
        await sleep(50);
        value = await probe();
    }
    return value;
}

t.test('while the storage is away: 503 with Retry-After at once; afterwards subscriptions work again and nothing is lost', async t => {
    t.equal((await iob.request('/v1/state/0_userdata.0.f1', { method: 'PATCH', body: { val: 41, ack: true } })).status, 200, 'written before the drop');
    t.equal((await iob.request('/v1/states/subscribe?sid=f', { method: 'POST', body: { method: 'polling', pattern: '0_userdata.0.*' } })).status, 200);
    t.equal((await iob.request('/v1/state/0_userdata.0.f1/subscribe', { method: 'POST', body: { url: hookUrl() } })).status, 200);

    const bounce = iob.storage.bounce(2500);
    await sleep(300);
    const started = Date.now();
    const during = await iob.request('/v1/state/0_userdata.0.f1');
    t.equal(during.status, 503, 'refused while away');
    t.ok(during.headers['retry-after'], 'with Retry-After');
    t.match(during.json, { error: /Database not connected/ });
    t.ok(Date.now() - started < 1000, 'without waiting for the DB');
    t.equal((await iob.request('/v1/command/getState?id=0_userdata.0.f1')).status, 503, 'commands too');
    await bounce;

    const back = await until(() => iob.request('/v1/state/0_userdata.0.f1'), res => res.status === 200, 10_000);
    t.equal(back.status, 200, 'serving again');
    t.equal(back.json.val, 41, 'nothing written before the drop was lost');

    hookBodies = [];
    // drain whatever the session queued before, then a change after the reconnect must arrive
    await iob.request('/v1/polling?sid=f&batch=true&timeout=1000');
    await write(42);
    const polled = await until(
        () => iob.request('/v1/polling?sid=f&batch=true&timeout=1000'),
        res => !!res.text && JSON.parse(res.text).some((e: { state?: { val: number } }) => e.state?.val === 42),
        5000,
    );
    t.ok(polled.text && JSON.parse(polled.text).some((e: { state?: { val: number } }) => e.state?.val === 42), 'the poller hears the change');
    const hooked = await until(async () => hookBodies.join('\n'), text => text.includes('"val":42'), 5000);
    t.match(hooked, '"val":42', 'the hook hears it');
});

t.test('graceful shutdown: waiting clients hear {disconnect:true}, an in-flight write finishes, the port is free within 2 s', async t => {
    t.equal((await iob.request('/v1/states/subscribe?sid=g', { method: 'POST', body: { method: 'polling', pattern: '0_userdata.0.*' } })).status, 200);
    await iob.request('/v1/polling?sid=g&batch=true&timeout=1000');
    const poll = iob.request('/v1/polling?sid=g&timeout=20000');
    const sse = new Promise<string>((resolve, reject) => {
        const req = request(`${iob.baseUrl}/v1/events?pattern=0_userdata.0.*`, res => {
            let text = '';
            res.on('data', d => (text += d));
            res.on('end', () => resolve(text));
            res.on('error', () => resolve(text));
        });
        req.on('error', reject);
        req.end();
    });
    hookBodies = [];
    await sleep(300);
    const writing = iob.request('/v1/state/0_userdata.0.f1', { method: 'PATCH', body: { val: 77, ack: true } });
    const stopping = Date.now();
    process.kill(iob.pid!, 'SIGTERM');
    t.equal((await writing).status, 200, 'the write in flight finished');
    t.same(JSON.parse((await poll).text), { disconnect: true }, 'the pending poll');
    t.match(await sse, '"disconnect":true', 'the event stream');
    const portFree = await until(
        () => fetch(`${iob.baseUrl}/name`).then(() => false, () => true),
        free => free,
        3000,
    );
    t.ok(portFree, 'port released');
    t.ok(Date.now() - stopping <= 2500, `within about 2 s (${Date.now() - stopping} ms)`);
    t.ok(hookBodies.some(b => b.includes('"disconnect":true')), 'the hook heard {disconnect:true}');
    t.equal((await iob.storage.states.getStateAsync('0_userdata.0.f1')).val, 77, 'the write is stored');
});
