import t from 'tap';
import { fakeInstance, type FakeInstance } from '../support/fake-instance';
import { startInProcess, type InProcessHost } from '../support/in-process';
import { appFixture, type AppFixture } from '../support/in-process-fixture';

let host: InProcessHost;
let iob: AppFixture;
let limited: AppFixture;
const instances: FakeInstance[] = [];
let history: FakeInstance;

const VALUES = [
    { val: 1, ts: 1000 },
    { val: 2, ts: 2000 },
];

/** Answers like the history adapter; the state `0_userdata.0.broken` gets an error answer. */
function historyAdapter(fixture: AppFixture, name = 'history.0'): Promise<FakeInstance> {
    return fakeInstance(fixture, name, (command, message) => {
        const id = (message as { id?: string }).id;
        if (id === '0_userdata.0.broken') {
            return { error: 'database down' };
        }
        if (command === 'getHistory') {
            return { result: VALUES, step: 0, sessionId: 1 };
        }
        return command === 'storeState' ? { success: true } : undefined;
    });
}

type Sent = { id: string; options: Record<string, unknown>; state: Record<string, unknown> };
const lastSent = (instance = history): Sent => instance.received.at(-1)!.message as Sent;

async function setDefaultHistory(fixture: AppFixture, name: string): Promise<void> {
    const config = await fixture.storage.objects.getObjectAsync('system.config');
    config.common.defaultHistory = name;
    await fixture.storage.objects.setObjectAsync('system.config', config);
}

async function withAcl(fixture: AppFixture, id: string, state: number): Promise<void> {
    await fixture.createState(id, { type: 'number' }, 1);
    const obj = await fixture.storage.objects.getObjectAsync(id);
    obj.acl = { owner: 'system.user.admin', ownerGroup: 'system.group.administrator', object: 0x644, state };
    await fixture.storage.objects.setObjectAsync(id, obj);
}

t.before(async () => {
    host = await startInProcess();
    iob = await appFixture(host);
    history = await historyAdapter(iob);
    instances.push(history);
    await iob.createState('0_userdata.0.num', { type: 'number' }, 1);
    await iob.createState('0_userdata.0.bool', { type: 'boolean' }, false);
    await iob.createState('0_userdata.0.broken', { type: 'number' }, 1);
    // one storage for both apps: the history.0 above answers the limited app too
    limited = await appFixture(host, { defaultUser: 'limited', dataSource: 'history.0' });
    await limited.createUser('limited', { other: { sendto: true }, state: { read: true, write: true }, object: { read: true } });
    await limited.createUser('nosendto', { other: { sendto: false }, state: { read: true, write: true }, object: { read: true } });
    await withAcl(limited, '0_userdata.0.readonly', 0x644);
    await withAcl(limited, '0_userdata.0.private', 0x600);
});
t.teardown(async () => {
    for (const instance of instances) {
        await instance.close();
    }
    await iob?.close();
    await limited?.close();
    await host?.stop();
});

t.test('without a data source: 422 No dataSource defined!', async t => {
    const res = await iob.request('/v1/getHistory/0_userdata.0.num');
    t.equal(res.status, 422);
    t.same(res.json, { error: 'No dataSource defined!' });
    await setDefaultHistory(iob, 'history.0');
});

t.test('GET getHistory: the query options typed, the result array answered', async t => {
    const query = 'start=1000&end=5000.5&count=10&aggregate=minmax&ack=true&addId=1&ignoreNull=false&integralUnit=60&enum=linear';
    const res = await iob.request(`/v1/getHistory/0_userdata.0.num?${query}`);
    t.equal(res.status, 200);
    t.same(res.json, VALUES);
    const sent = lastSent();
    t.equal(sent.id, '0_userdata.0.num');
    t.match(sent.options, { start: 1000, end: 5000.5, count: 10, aggregate: 'minmax', ack: true, addId: true, ignoreNull: false, integralUnit: '60' });
    t.match(sent.options, { instance: 'history.0', user: 'system.user.admin' });
    t.notOk('enum' in sent.options, 'unknown keys are dropped');
});

t.test('POST getHistory: JSON booleans and string booleans both work', async t => {
    const res = await iob.request('/v1/getHistory', { method: 'POST', body: { id: '0_userdata.0.num', options: { count: 2, ack: true, q: 'true', from: false } } });
    t.equal(res.status, 200);
    t.same(res.json, VALUES);
    t.match(lastSent().options, { count: 2, ack: true, q: true, from: false });
});

t.test('getHistory errors: bad options, missing id, bad bodies, an error answer', async t => {
    let res = await iob.request('/v1/getHistory/0_userdata.0.num?aggregate=avg');
    t.equal(res.status, 422);
    t.match(res.json.error, /aggregate/);
    res = await iob.request('/v1/getHistory/0_userdata.0.num?start=yesterday');
    t.equal(res.status, 422);
    t.match(res.json.details, [{ param: 'start' }]);
    res = await iob.request('/v1/getHistory', { method: 'POST', body: { options: { count: 1 } } });
    t.equal(res.status, 422, 'a missing id (4.0.2 crashed)');
    t.match(res.json.error, /'id' not found/);
    res = await iob.request('/v1/getHistory', { method: 'POST' });
    t.equal(res.status, 422);
    res = await iob.request('/v1/getHistory', { method: 'POST', raw: '{"id":', headers: { 'Content-Type': 'application/json' } });
    t.equal(res.status, 400);
    res = await iob.request('/v1/getHistory/0_userdata.0.broken');
    t.equal(res.status, 502);
    t.match(res.json, { error: 'database down' });
});

t.test('GET addHistory: the value converted by the state type', async t => {
    let res = await iob.request('/v1/addHistory/0_userdata.0.num?val=5,5&ack=true&ts=1000&q=0&from=system.adapter.test.0');
    t.equal(res.status, 200);
    t.same(res.json, { success: true });
    t.same(lastSent(), { id: '0_userdata.0.num', state: { ts: 1000, q: 0, ack: true, from: 'system.adapter.test.0', val: 5.5 } });
    res = await iob.request('/v1/addHistory/0_userdata.0.bool?val=1');
    t.equal(res.status, 200);
    t.match(lastSent().state, { val: true, ts: Number });
    res = await iob.request('/v1/addHistory/0_userdata.0.num?val=abc');
    t.equal(res.status, 422);
    res = await iob.request('/v1/addHistory/0_userdata.0.num');
    t.equal(res.status, 422);
    t.match(res.json.error, /'val' not found/);
    res = await iob.request('/v1/addHistory/0_userdata.0.nothing?val=1');
    t.equal(res.status, 404);
    t.same(res.json, { error: 'State not found', stateId: '0_userdata.0.nothing' });
    res = await iob.request('/v1/addHistory/0_userdata.0.broken?val=1');
    t.equal(res.status, 502);
});

t.test('POST addHistory: JSON ack, text for a number state converted', async t => {
    let res = await iob.request('/v1/addHistory', { method: 'POST', body: { id: '0_userdata.0.num', state: { val: '7', ack: true, ts: 3000 } } });
    t.equal(res.status, 200);
    t.same(lastSent(), { id: '0_userdata.0.num', state: { ts: 3000, ack: true, val: 7 } });
    for (const body of [undefined, { id: '0_userdata.0.num' }, { state: { val: 1 } }, { id: '0_userdata.0.num', state: { ack: true } }]) {
        res = await iob.request('/v1/addHistory', { method: 'POST', body });
        t.equal(res.status, 422, JSON.stringify(body));
    }
    res = await iob.request('/v1/addHistory', { method: 'POST', raw: 'not json', headers: { 'Content-Type': 'application/json' } });
    t.equal(res.status, 400);
});

t.test('an unknown or stopped history instance', async t => {
    await setDefaultHistory(iob, 'nothing.0');
    let res = await iob.request('/v1/getHistory/0_userdata.0.num');
    t.equal(res.status, 404);
    t.same(res.json, { error: 'instance not found', instance: 'nothing.0' });
    await setDefaultHistory(iob, 'history.0');
    await history.setAlive(false);
    res = await iob.request('/v1/addHistory/0_userdata.0.num?val=1');
    t.equal(res.status, 503);
    t.same(res.json, { error: 'instance is not online', instance: 'history.0' });
    await history.setAlive(true);
});

t.test('per-state ACL: reading needs the state readable, writing writable', async t => {
    let res = await limited.request('/v1/getHistory/0_userdata.0.readonly?count=1');
    t.equal(res.status, 200);
    t.same(res.json, VALUES);
    res = await limited.request('/v1/addHistory/0_userdata.0.readonly?val=1');
    t.equal(res.status, 403);
    t.match(res.json, { error: 'permissionError' });
    res = await limited.request('/v1/addHistory', { method: 'POST', body: { id: '0_userdata.0.readonly', state: { val: 1 } } });
    t.equal(res.status, 403);
    res = await limited.request('/v1/getHistory', { method: 'POST', body: { id: '0_userdata.0.private' } });
    t.equal(res.status, 403);
    t.match(res.json, { error: 'permissionError' });
});

t.test('without other.sendto every history route answers 403', async t => {
    await limited.restart({ defaultUser: 'nosendto' });
    for (const [path, method, body] of [
        ['/v1/getHistory/0_userdata.0.readonly', 'GET', undefined],
        ['/v1/getHistory', 'POST', { id: '0_userdata.0.readonly' }],
        ['/v1/addHistory/0_userdata.0.readonly?val=1', 'GET', undefined],
        ['/v1/addHistory', 'POST', { id: '0_userdata.0.readonly', state: { val: 1 } }],
    ] as const) {
        const res = await limited.request(path, { method, body });
        t.equal(res.status, 403, `${method} ${path}`);
        t.same(res.json, { error: 'permissionError' });
    }
});
