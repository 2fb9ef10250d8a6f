import t from 'tap';
import { createState } from '../support/iobroker';
import { startInProcess, type InProcessApp, type InProcessHost } from '../support/in-process';

let host: InProcessHost;
let app: InProcessApp;
t.before(async () => {
    host = await startInProcess();
    app = await host.app();
    await createState(host.storage, '0_userdata.0.t.a', { type: 'number' }, 1);
    await createState(host.storage, '0_userdata.0.t.b', { type: 'boolean' }, true);
    await createState(host.storage, '0_userdata.0.t.s', { type: 'string' }, 'x');
});
t.teardown(async () => {
    await app?.close();
    await host?.stop();
});

t.test('getState answers the 4.0.2 envelope', async t => {
    let res = await app.request('/v1/command/getState?id=0_userdata.0.t.a');
    t.equal(res.status, 200);
    t.match(res.json, { error: null, result: { val: 1, ack: true } });
    res = await app.request('/v1/command/getState', { method: 'POST', body: { id: '0_userdata.0.t.b' } });
    t.match(res.json, { error: null, result: { val: true } });
    res = await app.request('/v1/command/getState?id=0_userdata.0.t.none');
    t.same(res.json, { error: null, result: null });
});

t.test('getState without id answers 422 naming the parameter', async t => {
    const res = await app.request('/v1/command/getState');
    t.equal(res.status, 422);
    t.match(res.json.error, /Argument 'id' not found/);
    t.same(res.json.details, [{ param: 'id', problem: 'required' }]);
    const empty = await app.request('/v1/command/getState?id=');
    t.equal(empty.status, 422, 'an empty id is refused by js-controller as a client mistake');
});

t.test('getStates and getForeignStates list by pattern and by id array', async t => {
    for (const name of ['getStates', 'getForeignStates']) {
        let res = await app.request(`/v1/command/${name}?pattern=0_userdata.0.t.*`);
        t.equal(res.status, 200);
        t.same(Object.keys(res.json.result).sort(), ['0_userdata.0.t.a', '0_userdata.0.t.b', '0_userdata.0.t.s']);
        res = await app.request(`/v1/command/${name}`, { method: 'POST', body: { pattern: ['0_userdata.0.t.a', '0_userdata.0.t.s'] } });
        t.same(Object.keys(res.json.result).sort(), ['0_userdata.0.t.a', '0_userdata.0.t.s']);
        res = await app.request(`/v1/command/${name}`, { method: 'POST', body: { pattern: { a: 1 } } });
        t.equal(res.status, 422);
    }
});

t.test('setState converts a plain value by the state type', async t => {
    let res = await app.request('/v1/command/setState?id=0_userdata.0.t.a&state=42');
    t.equal(res.status, 200);
    t.same(res.json, { error: null, result: '0_userdata.0.t.a' });
    t.equal((await host.storage.states.getStateAsync('0_userdata.0.t.a')).val, 42);
    res = await app.request('/v1/command/setState?id=0_userdata.0.t.b&state=false&ack=true');
    const b = await host.storage.states.getStateAsync('0_userdata.0.t.b');
    t.equal(b.val, false);
    t.equal(b.ack, true);
    res = await app.request('/v1/command/setState', { method: 'POST', body: { id: '0_userdata.0.t.s', state: { val: 'y', ack: true } } });
    t.equal(res.status, 200);
    t.match(await host.storage.states.getStateAsync('0_userdata.0.t.s'), { val: 'y', ack: true });
    res = await app.request(`/v1/command/setState?id=0_userdata.0.t.s&state=${encodeURIComponent('{"val":"z","ack":false}')}`);
    t.match(await host.storage.states.getStateAsync('0_userdata.0.t.s'), { val: 'z', ack: false });
});

t.test('setState errors: missing params, bad JSON, wrong value, bad state object', async t => {
    let res = await app.request('/v1/command/setState?id=0_userdata.0.t.a');
    t.equal(res.status, 422);
    t.match(res.json.error, /'state'/);
    res = await app.request('/v1/command/setState');
    t.equal(res.status, 422);
    t.same(res.json.details.map((d: { param: string }) => d.param), ['id', 'state'], 'every missing parameter is named');
    res = await app.request(`/v1/command/setState?id=0_userdata.0.t.a&state=${encodeURIComponent('{bad')}`);
    t.equal(res.status, 422);
    t.match(res.json.error, /Cannot parse state/);
    res = await app.request('/v1/command/setState?id=0_userdata.0.t.a&state=abc');
    t.equal(res.status, 422);
    res = await app.request('/v1/command/setState', { method: 'POST', body: { id: '0_userdata.0.t.a', state: { val: 1, bogus: 1 } } });
    t.equal(res.status, 422);
    t.equal((await host.storage.states.getStateAsync('0_userdata.0.t.a')).val, 42, 'nothing was written');
});

t.test('POST body must be a JSON object', async t => {
    let res = await app.request('/v1/command/getState', { method: 'POST', body: [1, 2] });
    t.equal(res.status, 422);
    res = await app.request('/v1/command/getState', { method: 'POST', raw: '{"id":', headers: { 'Content-Type': 'application/json' } });
    t.equal(res.status, 400);
});
