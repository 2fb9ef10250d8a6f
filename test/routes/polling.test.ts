import t from 'tap';
import { startInProcess, type InProcessHost } from '../support/in-process';
import { appFixture, type AppFixture } from '../support/in-process-fixture';

let host: InProcessHost;
let iob: AppFixture;
t.before(async () => {
    host = await startInProcess();
    iob = await appFixture(host);
    await iob.createState('0_userdata.0.p1', { type: 'number' }, 0);
    await iob.createState('0_userdata.0.p2', { type: 'number' }, 0);
});
t.teardown(async () => {
    await iob?.close();
    await host?.stop();
});

const write = (id: string, val: ioBroker.StateValue) => iob.storage.states.setStateAsync(id, { val, ack: true, from: 'system.adapter.test.0' });

async function events(sid: string, count: number): Promise<Array<{ id: string; state: { val: unknown } }>> {
    const got: Array<{ id: string; state: { val: unknown } }> = [];
    while (got.length < count) {
        const res = await iob.request(`/v1/polling?sid=${sid}&batch=true`);
        t.equal(res.status, 200);
        got.push(...(res.text ? JSON.parse(res.text) : []));
    }
    return got;
}

t.test('connect, subscribe, poll an event, time out empty', async t => {
    let res = await iob.request('/v1/polling?sid=a&connect&timeout=1000');
    t.equal(res.text, '_');
    t.match(res.headers['content-type'], /^text\/plain/);
    res = await iob.request('/v1/state/0_userdata.0.p1/subscribe?sid=a&method=polling');
    t.match(res.json, { val: 0, ack: true }, 'the current state');
    const poll = iob.request('/v1/polling?sid=a');
    await new Promise(r => setTimeout(r, 100));
    await write('0_userdata.0.p1', 5);
    res = await poll;
    t.match(JSON.parse(res.text), { id: '0_userdata.0.p1', state: { val: 5 } });
    const started = Date.now();
    res = await iob.request('/v1/polling?sid=a');
    t.equal(res.status, 200);
    t.equal(res.text, '', 'empty body after the timeout');
    t.ok(Date.now() - started >= 900);
});

t.test('pattern subscription, listing, unsubscribe', async t => {
    let res = await iob.request('/v1/states/subscribe?sid=b', { method: 'POST', body: { method: 'polling', pattern: '0_userdata.0.p*' } });
    t.same(res.json, { result: 'OK' });
    res = await iob.request('/v1/states/subscribe?sid=b&method=polling');
    t.same(res.json, { states: ['0_userdata.0.p*'] });
    await write('0_userdata.0.p2', 1);
    t.match(await events('b', 1), [{ id: '0_userdata.0.p2', state: { val: 1 } }]);
    res = await iob.request('/v1/states/subscribe?sid=b', { method: 'DELETE', body: { method: 'polling' } });
    t.same(res.json, { result: 'OK' });
    // as in 4.0.2, the session is gone with its last subscription (it counts against no limit any more)
    res = await iob.request('/v1/states/subscribe?sid=b&method=polling');
    t.equal(res.status, 404, 'emptied: gone');
    res = await iob.request('/v1/states/subscribe?sid=nobody&method=polling');
    t.equal(res.status, 404);
    t.same(res.json, { error: 'URL or session not found' });
});

t.test('two clients on one id: one unsubscribes, the other still receives', async t => {
    await iob.request('/v1/state/0_userdata.0.p1/subscribe?sid=c1&method=polling');
    await iob.request('/v1/state/0_userdata.0.p1/subscribe?sid=c2&method=polling');
    await iob.request('/v1/state/0_userdata.0.p1/subscribe?sid=c1&method=polling', { method: 'DELETE' });
    await write('0_userdata.0.p1', 42);
    t.match(await events('c2', 1), [{ id: '0_userdata.0.p1', state: { val: 42 } }]);
});

t.test('a burst of 100 writes arrives completely and in order', async t => {
    await iob.request('/v1/state/0_userdata.0.p2/subscribe?sid=burst&method=polling');
    for (let i = 1; i <= 100; i++) {
        await write('0_userdata.0.p2', i);
    }
    const got = await events('burst', 100);
    t.same(got.map(e => e.state.val), Array.from({ length: 100 }, (_, i) => i + 1));
});

t.test('concurrent polls on one sid lose nothing', async t => {
    await iob.request('/v1/state/0_userdata.0.p1/subscribe?sid=conc&method=polling');
    const polls = [iob.request('/v1/polling?sid=conc'), iob.request('/v1/polling?sid=conc')];
    await new Promise(r => setTimeout(r, 100));
    await write('0_userdata.0.p1', 100);
    await write('0_userdata.0.p1', 101);
    const vals = (await Promise.all(polls)).map(r => JSON.parse(r.text).state.val).sort();
    t.same(vals, [100, 101]);
});

t.test('filters: onchange (JSON boolean) and delta per id, also for patterns', async t => {
    await iob.request('/v1/states/subscribe?sid=f', { method: 'POST', body: { method: 'polling', pattern: '0_userdata.0.p*', onchange: true } });
    await write('0_userdata.0.p1', 7);
    await write('0_userdata.0.p1', 7);
    await write('0_userdata.0.p2', 7);
    await write('0_userdata.0.p1', 8);
    const got = await events('f', 3);
    t.same(got.map(e => `${e.id}=${e.state.val}`), ['0_userdata.0.p1=7', '0_userdata.0.p2=7', '0_userdata.0.p1=8'], 'the same value for another id is not suppressed');
    await iob.request('/v1/state/0_userdata.0.p1/subscribe?sid=d&method=polling&delta=5');
    for (const v of [9, 12, 14, 20]) {
        await write('0_userdata.0.p1', v);
    }
    t.same((await events('d', 2)).map(e => e.state.val), [14, 20], 'delta from the last reported value');
});

t.test('object subscriptions', async t => {
    let res = await iob.request('/v1/object/0_userdata.0.p1/subscribe?sid=o&method=polling', { method: 'POST' });
    t.match(res.json, { _id: '0_userdata.0.p1', type: 'state' });
    res = await iob.request('/v1/object/0_userdata.0.p1/subscribe?sid=o2&method=polling');
    t.equal(res.status, 200, 'GET works too (old example clients)');
    await iob.storage.objects.extendObjectAsync('0_userdata.0.p1', { common: { unit: 'W' } });
    let body = '';
    for (let i = 0; i < 5 && !body; i++) {
        body = (await iob.request('/v1/polling?sid=o')).text;
    }
    t.match(JSON.parse(body), { id: '0_userdata.0.p1', obj: { common: { unit: 'W' } } });
    res = await iob.request('/v1/objects/subscribe?sid=o&method=polling');
    t.same(res.json.states, ['0_userdata.0.p1']);
});

t.test('every subscription route without a body answers 4xx or OK, never crashes', async t => {
    const cases: Array<[string, string]> = [
        ['GET', '/v1/objects/subscribe'],
        ['DELETE', '/v1/states/subscribe'],
        ['POST', '/v1/states/subscribe'],
        ['DELETE', '/v1/state/0_userdata.0.p1/subscribe'],
        ['POST', '/v1/object/0_userdata.0.p1/subscribe'],
        ['DELETE', '/v1/object/0_userdata.0.p1/subscribe'],
        ['POST', '/v1/objects/subscribe'],
        ['DELETE', '/v1/objects/subscribe'],
        ['GET', '/v1/states/subscribe'],
        ['GET', '/v1/state/0_userdata.0.p1/subscribe'],
    ];
    for (const [method, path] of cases) {
        const res = await iob.request(path, { method });
        t.ok(res.status < 500, `${method} ${path}: ${res.status}`);
        t.type(res.json, 'object');
    }
    let res = await iob.request('/v1/states/subscribe', { method: 'POST', body: { url: 'http://127.0.0.1:1/' } });
    t.equal(res.status, 422);
    t.match(res.json, { error: 'pattern not provided', expectedBody: { pattern: 'system.adapter.admin.0.*' } });
    res = await iob.request('/v1/state/0_userdata.0.p1/subscribe', { method: 'POST', body: {} });
    t.match([res.status, res.json], [422, { error: 'url not provided', expectedBody: { url: 'http://ipaddress:9000/hook/' } }]);
    res = await iob.request('/v1/state/no.such.state/subscribe?method=polling&sid=x');
    t.equal(res.status, 404);
    res = await iob.request('/v1/state/enum.rooms/subscribe?method=polling&sid=x');
    t.match([res.status, res.json.error], [422, 'Cannot subscribe on non-state']);
    t.equal((await iob.request('/name')).status, 200, 'still up');
});

t.test('unload tells a pending poll {disconnect:true}', async t => {
    await iob.request('/v1/polling?sid=bye&connect&timeout=20000');
    const poll = iob.request('/v1/polling?sid=bye');
    await new Promise(r => setTimeout(r, 200));
    const restart = iob.restart();
    t.same(JSON.parse((await poll).text), { disconnect: true });
    await restart;
});

t.test('sessions belong to their user', async t => {
    const other = await appFixture(host, { auth: true });
    t.teardown(() => other.close());
    await other.createUser('alice', { state: { read: true } }, 'a');
    await other.createUser('bob', { state: { read: true } }, 'b');
    const alice = { Authorization: `Basic ${Buffer.from('alice:a').toString('base64')}` };
    const bob = { Authorization: `Basic ${Buffer.from('bob:b').toString('base64')}` };
    await other.request('/v1/states/subscribe?sid=shared', { method: 'POST', body: { method: 'polling', pattern: '0_userdata.0.*' }, headers: alice });
    const res = await other.request('/v1/states/subscribe?sid=shared&method=polling', { headers: bob });
    t.equal(res.status, 404, 'bob does not see alice\'s session');
    t.same((await other.request('/v1/states/subscribe?sid=shared&method=polling', { headers: alice })).json, { states: ['0_userdata.0.*'] });
});

t.test('a pattern subscription only delivers states the user may read', async t => {
    const other = await appFixture(host, { auth: true });
    t.teardown(() => other.close());
    await other.createUser('carol', { state: { read: true }, object: { read: true } }, 'c');
    const carol = { Authorization: `Basic ${Buffer.from('carol:c').toString('base64')}` };
    const acl = (state: number) => ({ owner: 'system.user.admin', ownerGroup: 'system.group.administrator', object: 0x664, state });
    for (const [id, bits] of [['0_userdata.0.open', 0x664], ['0_userdata.0.secret', 0x600]] as const) {
        await other.storage.objects.setObjectAsync(id, {
            _id: id,
            type: 'state',
            common: { name: id, role: 'state', type: 'number', read: true, write: true },
            native: {},
            acl: acl(bits),
        } as ioBroker.StateObject);
    }
    const subscribed = await other.request('/v1/states/subscribe?sid=c1', { method: 'POST', body: { method: 'polling', pattern: '0_userdata.0.*' }, headers: carol });
    t.equal(subscribed.status, 200);
    const set = (id: string, val: number) => other.storage.states.setStateAsync(id, { val, ack: true, from: 'system.adapter.test.0' });
    await set('0_userdata.0.secret', 1);
    await set('0_userdata.0.open', 2);
    await set('0_userdata.0.secret', 3);
    await set('0_userdata.0.open', 4);
    const got: Array<{ id: string; state: { val: number } }> = [];
    const deadline = Date.now() + 5000;
    while (got.length < 2 && Date.now() < deadline) {
        const res = await other.request('/v1/polling?sid=c1&batch=true&timeout=1000', { headers: carol });
        got.push(...(res.text ? JSON.parse(res.text) : []));
    }
    t.same(got.map(e => `${e.id}=${e.state.val}`), ['0_userdata.0.open=2', '0_userdata.0.open=4']);

    // the administrator opens the secret state: the next event reaches carol
    const secret = await other.storage.objects.getObjectAsync('0_userdata.0.secret');
    await other.storage.objects.setObjectAsync('0_userdata.0.secret', { ...secret!, acl: acl(0x664) });
    await new Promise(resolve => setTimeout(resolve, 200));
    await set('0_userdata.0.secret', 5);
    const next = await other.request('/v1/polling?sid=c1&timeout=3000', { headers: carol });
    t.same(JSON.parse(next.text).state.val, 5);
});
