/*
 * Storage faults and shutdown against real storage: the in-process DB servers stop and return
 * (storage.bounce), the adapter process is stopped while clients wait on it.
 */
import { request } from 'node:http';
import t from 'tap';
import { startIobroker, type IobFixture } from './support/iobroker';
import { startHookReceiver, type HookReceiver } from './support/hook-receiver';
import { storageDropTest, until } from './support/storage-drop';

let iob: IobFixture;
let hooks: HookReceiver;
t.before(async () => {
    hooks = await startHookReceiver();
    iob = await startIobroker({ native: { hookRetryMs: 100, hookMaxFailures: 50, checkInterval: 0 } });
    await iob.createState('0_userdata.0.f1', { type: 'number' }, 0);
});
t.teardown(async () => {
    await iob?.stop();
    hooks?.close();
});

const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms));
const write = (val: number) => iob.storage.states.setStateAsync('0_userdata.0.f1', { val, ack: true, from: 'system.adapter.other.0' });

t.test('while the storage is away: 503 with Retry-After at once; afterwards subscriptions work again and nothing is lost', t =>
    storageDropTest(t, iob, '0_userdata.0.f1', ms => iob.storage.bounce(ms), write),
);

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
    t.equal((await iob.request('/v1/state/0_userdata.0.f1/subscribe', { method: 'POST', body: { url: hooks.url } })).status, 200);
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
    t.ok(hooks.received.some(r => r.body.includes('"disconnect":true')), 'the hook heard {disconnect:true}');
    t.equal((await iob.storage.states.getStateAsync('0_userdata.0.f1')).val, 77, 'the write is stored');
});
