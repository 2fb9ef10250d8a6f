import { createHmac } from 'node:crypto';
import t from 'tap';
import { startHookReceiver, type HookReceiver } from '../support/hook-receiver';
import { startInProcess, type InProcessHost } from '../support/in-process';
import { appFixture, type AppFixture } from '../support/in-process-fixture';

let host: InProcessHost;
let iob: AppFixture;
let hooks: HookReceiver;

t.before(async () => {
    hooks = await startHookReceiver();
    host = await startInProcess();
    iob = await appFixture(host, { hookRetryMs: 50, hookMaxFailures: 3, checkInterval: 0 });
    await iob.createState('0_userdata.0.h1', { type: 'number' }, 0);
});
t.teardown(async () => {
    await iob?.close();
    await host?.stop();
    hooks?.close();
});

const write = (id: string, val: ioBroker.StateValue) => iob.storage.states.setStateAsync(id, { val, ack: true, from: 'system.adapter.test.0' });
const events = () => hooks.received.map(r => JSON.parse(r.body || decodeURIComponent(r.body))).filter(b => b.id);

async function until(check: () => boolean, ms = 5000): Promise<boolean> {
    const end = Date.now() + ms;
    while (!check() && Date.now() < end) {
        await new Promise(r => setTimeout(r, 20));
    }
    return check();
}

t.test('registration is validated with {test:true}; events arrive with the requested method, signed', async t => {
    hooks.received = [];
    const secret = 'whsec_' + Buffer.from('a test secret').toString('base64');
    const res = await iob.request('/v1/state/0_userdata.0.h1/subscribe', { method: 'POST', body: { url: hooks.url, method: 'PUT', secret } });
    t.equal(res.status, 200);
    t.match(res.json, { val: 0 });
    t.same(JSON.parse(hooks.received[0].body), { test: true });
    await write('0_userdata.0.h1', 3);
    t.ok(await until(() => events().length === 1));
    const delivery = hooks.received.at(-1)!;
    t.equal(delivery.method, 'PUT');
    t.match(JSON.parse(delivery.body), { id: '0_userdata.0.h1', state: { val: 3 } });
    const expected = createHmac('sha256', Buffer.from('a test secret'))
        .update(`${delivery.headers['webhook-id']}.${delivery.headers['webhook-timestamp']}.${delivery.body}`)
        .digest('base64');
    t.equal(delivery.headers['webhook-signature'], `v1,${expected}`, 'Standard Webhooks signature verifies');
    const list = await iob.request(`/v1/states/subscribe?url=${encodeURIComponent(hooks.url)}`);
    t.same(list.json, { states: ['0_userdata.0.h1'] }, 'url works as a query parameter on the listing');
});

t.test('a burst of 100 writes arrives completely and in order', async t => {
    hooks.received = [];
    for (let i = 1; i <= 100; i++) {
        await write('0_userdata.0.h1', i);
    }
    t.ok(await until(() => events().length >= 100, 10_000));
    t.same(events().map(e => e.state.val), Array.from({ length: 100 }, (_, i) => i + 1));
});

t.test('a failing receiver gets retries and then everything, in order', async t => {
    hooks.received = [];
    hooks.failNext = [500, 500];
    await write('0_userdata.0.h1', 1000);
    await write('0_userdata.0.h1', 1001);
    t.ok(await until(() => events().length >= 2));
    t.same(events().map(e => e.state.val), [1000, 1001]);
});

t.test('subscriptions survive an adapter restart and receivers hear {disconnect:true}', async t => {
    hooks.received = [];
    await iob.restart();
    t.ok(hooks.received.some(r => r.body === '{"disconnect":true}'), 'disconnect on unload');
    // the port answers before the stored hooks are subscribed again: wait until this one is back
    let listed = 0;
    for (let i = 0; i < 100 && listed !== 200; i++) {
        listed = (await iob.request(`/v1/states/subscribe?url=${encodeURIComponent(hooks.url)}`)).status;
        await new Promise(r => setTimeout(r, listed === 200 ? 0 : 50));
    }
    t.equal(listed, 200, 'the hook is restored');
    hooks.received = [];
    await write('0_userdata.0.h1', 2000);
    t.ok(await until(() => events().length >= 1));
    t.match(events()[0], { id: '0_userdata.0.h1', state: { val: 2000 } });
});

t.test('a hook that keeps failing is removed', async t => {
    hooks.failNext = Array(20).fill(500);
    await write('0_userdata.0.h1', 3000);
    let status = 200;
    for (let i = 0; i < 100 && status === 200; i++) {
        await new Promise(r => setTimeout(r, 50));
        status = (await iob.request(`/v1/states/subscribe?url=${encodeURIComponent(hooks.url)}`)).status;
    }
    t.equal(status, 404);
    hooks.failNext = [];
});

t.test('registration errors', async t => {
    let res = await iob.request('/v1/states/subscribe', { method: 'POST', body: { url: 'http://127.0.0.1:1/nothing', pattern: 'a.*' } });
    t.equal(res.status, 422);
    t.match(res.json.error, /No valid answer from URL hook/);
    res = await iob.request('/v1/states/subscribe', { method: 'POST', body: { url: 'not a url', pattern: 'a.*' } });
    t.ok(res.status === 422, 'a malformed url');
    for (const url of ['http://169.254.169.254/latest/meta-data/', 'http://[fe80::1]/', 'http://[fd00:ec2::254]/']) {
        res = await iob.request('/v1/state/0_userdata.0.h1/subscribe', { method: 'POST', body: { url } });
        t.equal(res.status, 403, `link-local and metadata targets are refused by default: ${url}`);
        t.match(res.json.error, /link-local or cloud metadata address; the option hooksAllowLinkLocal allows it/);
    }
});

t.test('a GET hook keeps its own query: every call carries it and exactly one event', async t => {
    hooks.received = [];
    const url = `${hooks.url}/get?room=hall&event=mine`;
    const res = await iob.request('/v1/state/0_userdata.0.h1/subscribe', { method: 'POST', body: { url, method: 'GET' } });
    t.equal(res.status, 200);
    for (const val of [41, 42, 43]) {
        await write('0_userdata.0.h1', val);
        t.ok(await until(() => hooks.received.some(r => r.url.includes(`%22val%22%3A${val}`))), `${val} delivered`);
    }
    const calls = hooks.received.filter(r => r.method === 'GET').map(r => new URL(r.url, 'http://x'));
    t.equal(calls.length, 4, 'the check and three events');
    for (const call of calls) {
        t.equal(call.pathname, '/hook/get');
        t.equal(call.searchParams.get('room'), 'hall', 'the registered query stays');
        t.equal(call.searchParams.getAll('event').length, 1, 'one event per call, none left over from the one before');
    }
    t.same(
        calls.slice(1).map(call => JSON.parse(call.searchParams.get('event')!).state.val),
        [41, 42, 43],
    );
    const listed = await iob.request(`/v1/states/subscribe?url=${encodeURIComponent(url)}`);
    t.same(listed.json, { states: ['0_userdata.0.h1'] }, 'listed under the URL as registered');
    await iob.request('/v1/state/0_userdata.0.h1/subscribe', { method: 'DELETE', body: { url } });
});
