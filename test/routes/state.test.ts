import t from 'tap';
import { startInProcess, type InProcessHost } from '../support/in-process';
import { appFixture, type AppFixture } from '../support/in-process-fixture';

let host: InProcessHost;
let iob: AppFixture;
t.before(async () => {
    host = await startInProcess();
    iob = await appFixture(host);
    await iob.createState('0_userdata.0.num', { type: 'number', min: 0, max: 100, name: 'Num State' }, 10);
    await iob.createState('0_userdata.0.plainNum', { type: 'number' }, 0);
    await iob.createState('0_userdata.0.bool', { type: 'boolean' }, false);
    await iob.createState('0_userdata.0.str', { type: 'string' }, 'abc');
    await iob.createState('0_userdata.0.json', { type: 'object' }, '{}');
    await iob.createState('0_userdata.0.onoff', { type: 'string' }, 'on');
    await iob.createState('0_userdata.0.empty', { type: 'number' });
});
t.teardown(async () => {
    await iob?.close();
    await host?.stop();
});

t.test('reads one state with its id', async t => {
    const res = await iob.request('/v1/state/0_userdata.0.num');
    t.equal(res.status, 200);
    t.match(res.json, { val: 10, ack: true, id: '0_userdata.0.num' });
    t.match(res.headers['content-type'], /application\/json/);
});

t.test('reads a state by its name', async t => {
    const res = await iob.request('/v1/state/Num%20State');
    t.equal(res.status, 200);
    t.match(res.json, { val: 10, id: '0_userdata.0.num' });
});

t.test('reads several comma-separated states in order', async t => {
    const res = await iob.request('/v1/state/0_userdata.0.str,0_userdata.0.num');
    t.equal(res.status, 200);
    t.same(res.json.map((s: { id: string }) => s.id), ['0_userdata.0.str', '0_userdata.0.num']);
});

t.test('unknown id answers 404 ID not found', async t => {
    const res = await iob.request('/v1/state/0_userdata.0.nothing');
    t.equal(res.status, 404);
    t.same(res.json, { error: 'ID not found', id: '0_userdata.0.nothing' });
    const several = await iob.request('/v1/state/0_userdata.0.num,0_userdata.0.nothing');
    t.equal(several.status, 404);
    t.equal(several.json.id, '0_userdata.0.nothing');
});

t.test('an object without a value answers only its id', async t => {
    const res = await iob.request('/v1/state/0_userdata.0.empty');
    t.equal(res.status, 200);
    t.same(res.json, { id: '0_userdata.0.empty' });
});

t.test('withInfo merges the object', async t => {
    const res = await iob.request('/v1/state/0_userdata.0.num?withInfo=true');
    t.equal(res.status, 200);
    t.match(res.json, { val: 10, type: 'state', common: { type: 'number', max: 100 }, id: '0_userdata.0.num' });
});

t.test('GET write converts by the state type', async t => {
    const cases: Array<[string, string, unknown]> = [
        ['0_userdata.0.num', '42', 42],
        ['0_userdata.0.num', '1,5', 1.5],
        ['0_userdata.0.num', '0x10', 16],
        ['0_userdata.0.bool', 'true', true],
        ['0_userdata.0.bool', '0', false],
        ['0_userdata.0.bool', 'ON', true],
        ['0_userdata.0.str', '123', '123'],
        ['0_userdata.0.str', 'true', 'true'],
        ['0_userdata.0.json', '{"a":1}', '{"a":1}'],
    ];
    for (const [id, value, expected] of cases) {
        const res = await iob.request(`/v1/state/${id}?value=${encodeURIComponent(value)}`);
        t.equal(res.status, 200, `${id}=${value}`);
        t.same(res.json, { val: expected, id }, `${id}=${value} answers the converted value`);
        const stored = await iob.storage.states.getStateAsync(id);
        t.same(stored.val, expected, `${id}=${value} is stored converted`);
        t.equal(stored.ack, false);
    }
});

t.test('GET write with ack=true stores ack', async t => {
    const res = await iob.request('/v1/state/0_userdata.0.str?value=x&ack=true');
    t.equal(res.status, 200);
    t.equal((await iob.storage.states.getStateAsync('0_userdata.0.str')).ack, true);
});

t.test('GET write of a value the type cannot take answers 422 and keeps the old value', async t => {
    await iob.request('/v1/state/0_userdata.0.num?value=7');
    for (const [id, value] of [['0_userdata.0.num', 'abc'], ['0_userdata.0.bool', 'maybe'], ['0_userdata.0.json', '{broken']]) {
        const res = await iob.request(`/v1/state/${id}?value=${encodeURIComponent(value)}`);
        t.equal(res.status, 422, `${id}=${value}`);
        t.type(res.json.error, 'string');
    }
    t.equal((await iob.storage.states.getStateAsync('0_userdata.0.num')).val, 7);
});

t.test('toggle: boolean, number with min/max, number without range, on/off string', async t => {
    await iob.request('/v1/state/0_userdata.0.bool?value=false');
    let res = await iob.request('/v1/state/0_userdata.0.bool/toggle');
    t.same(res.json, { val: true, id: '0_userdata.0.bool' });
    res = await iob.request('/v1/state/0_userdata.0.bool?toggle');
    t.same(res.json, { val: false, id: '0_userdata.0.bool' });

    await iob.request('/v1/state/0_userdata.0.num?value=49');
    res = await iob.request('/v1/state/0_userdata.0.num/toggle');
    t.same(res.json, { val: 51, id: '0_userdata.0.num' });
    await iob.request('/v1/state/0_userdata.0.num?value=0');
    res = await iob.request('/v1/state/0_userdata.0.num/toggle');
    t.same(res.json, { val: 100, id: '0_userdata.0.num' });

    res = await iob.request('/v1/state/0_userdata.0.plainNum/toggle');
    t.same(res.json, { val: 1, id: '0_userdata.0.plainNum' });
    res = await iob.request('/v1/state/0_userdata.0.plainNum/toggle');
    t.same(res.json, { val: 0, id: '0_userdata.0.plainNum' });

    res = await iob.request('/v1/state/0_userdata.0.onoff/toggle');
    t.same(res.json, { val: 'off', id: '0_userdata.0.onoff' });
});

t.test('toggle errors: a free string 422, an unset state 404, unknown id 404', async t => {
    await iob.request('/v1/state/0_userdata.0.str?value=abc');
    let res = await iob.request('/v1/state/0_userdata.0.str/toggle');
    t.equal(res.status, 422);
    t.equal(res.json.error, 'state is neither number nor boolean');
    res = await iob.request('/v1/state/0_userdata.0.empty/toggle');
    t.equal(res.status, 404);
    res = await iob.request('/v1/state/0_userdata.0.nothing/toggle');
    t.equal(res.status, 404);
});

t.test('plain value and extraPlain', async t => {
    await iob.request('/v1/state/0_userdata.0.str?value=hello');
    let res = await iob.request('/v1/state/0_userdata.0.str/plain');
    t.equal(res.status, 200);
    t.equal(res.text, '"hello"');
    res = await iob.request('/v1/state/0_userdata.0.str/plain?extraPlain=true');
    t.equal(res.text, 'hello');
    res = await iob.request('/v1/state/0_userdata.0.empty/plain');
    t.equal(res.status, 404);
    t.same(res.json, { error: 'State not found', id: '0_userdata.0.empty' });
});

t.test('PATCH writes a state and echoes it', async t => {
    const res = await iob.request('/v1/state/0_userdata.0.num', { method: 'PATCH', body: { val: 77, ack: true } });
    t.equal(res.status, 200);
    t.match(res.json, { val: 77, ack: true, id: '0_userdata.0.num', from: 'system.adapter.rest-api.0', user: 'system.user.admin' });
    t.equal((await iob.storage.states.getStateAsync('0_userdata.0.num')).val, 77);
});

t.test('PATCH converts text for a number state', async t => {
    const res = await iob.request('/v1/state/0_userdata.0.num', { method: 'PATCH', body: { val: '12' } });
    t.equal(res.status, 200);
    t.equal((await iob.storage.states.getStateAsync('0_userdata.0.num')).val, 12);
});

t.test('PATCH errors: bad JSON 400, non-JSON 415, empty 422, unknown property 422, unknown id 404', async t => {
    const before = await iob.storage.states.getStateAsync('0_userdata.0.num');
    let res = await iob.request('/v1/state/0_userdata.0.num', { method: 'PATCH', raw: '{"val": 1', headers: { 'Content-Type': 'application/json' } });
    t.equal(res.status, 400);
    t.match(res.json.error, /Invalid JSON/);
    res = await iob.request('/v1/state/0_userdata.0.num', { method: 'PATCH', raw: 'val=5', headers: { 'Content-Type': 'text/plain' } });
    t.equal(res.status, 415);
    res = await iob.request('/v1/state/0_userdata.0.num', { method: 'PATCH', raw: '', headers: { 'Content-Type': 'application/json' } });
    t.equal(res.status, 422);
    res = await iob.request('/v1/state/0_userdata.0.num', { method: 'PATCH', body: {} });
    t.equal(res.status, 422);
    res = await iob.request('/v1/state/0_userdata.0.num', { method: 'PATCH', body: { val: 1, foo: 2 } });
    t.equal(res.status, 422);
    t.match(res.json.error, /forbidden properties/);
    res = await iob.request('/v1/state/0_userdata.0.num', { method: 'PATCH', body: 5 });
    t.equal(res.status, 422);
    res = await iob.request('/v1/state/0_userdata.0.nothing', { method: 'PATCH', body: { val: 1 } });
    t.equal(res.status, 404);
    const after = await iob.storage.states.getStateAsync('0_userdata.0.num');
    t.equal(after.val, before.val, 'the stored value is unchanged');
    t.equal(after.ts, before.ts, 'and not even touched');
});

t.test('write and wait for ack: answered by the acknowledged state', async t => {
    const id = '0_userdata.0.num';
    // a device answering with ack: listens through its own client of the states DB
    const states = iob.storage.states;
    const timer = setInterval(async () => {
        const s = await states.getStateAsync(id);
        if (s && !s.ack && s.val === 33) {
            clearInterval(timer);
            await states.setStateAsync(id, { val: 34, ack: true, from: 'system.adapter.device.0' });
        }
    }, 20);
    const res = await iob.request(`/v1/state/${id}?value=33&timeout=3000`);
    clearInterval(timer);
    t.equal(res.status, 200);
    t.match(res.json, { val: 34, ack: true, id });
});

t.test('write and wait without ack: 501 timeout', async t => {
    const res = await iob.request('/v1/state/0_userdata.0.str?value=wait&timeout=200');
    t.equal(res.status, 501);
    t.same(res.json, { error: 'timeout', id: '0_userdata.0.str', val: 'wait' });
    const patch = await iob.request('/v1/state/0_userdata.0.str?timeout=200', { method: 'PATCH', body: { val: 'p' } });
    t.equal(patch.status, 501);
});

t.test('states listing by pattern', async t => {
    let res = await iob.request('/v1/states?filter=0_userdata.0.*');
    t.equal(res.status, 200);
    t.ok(res.json['0_userdata.0.num']);
    t.equal(res.json['0_userdata.0.empty'], null, 'an object without value is listed as null');
    res = await iob.request('/v1/states?filter=nothing.here.*');
    t.same(res.json, {});
});

t.test('an oversized body answers 413 and stores nothing', async t => {
    await iob.restart({ bodyLimit: 2048 });
    const before = await iob.storage.states.getStateAsync('0_userdata.0.str');
    const res = await iob.request('/v1/state/0_userdata.0.str', { method: 'PATCH', body: { val: 'x'.repeat(5000) } });
    t.equal(res.status, 413);
    t.type(res.json.error, 'string');
    t.same((await iob.storage.states.getStateAsync('0_userdata.0.str')).val, before.val);
    await iob.restart({ bodyLimit: 104857600 });
});
