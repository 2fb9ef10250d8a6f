/*
 * Bulk writes and reads against real storage: PATCH /v1/states and the setStates command (a result per
 * id, 207 when some failed), POST /v1/states/query (a list of ids, optional fields), with the same
 * conversion and ACL as single requests, and their error cases.
 */
import t from 'tap';
import { createState, createUser } from '../support/iobroker';
import { startInProcess, type InProcessApp, type InProcessHost } from '../support/in-process';

let host: InProcessHost;
let app: InProcessApp;
const P = '0_userdata.0.bulk';
const ADMIN_ONLY = { owner: 'system.user.admin', ownerGroup: 'system.group.administrator', object: 0x664, state: 0x644 };
const basic = (user: string, pass: string) => ({ Authorization: `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}` });
const admin = basic('admin', 'iobroker');

t.before(async () => {
    host = await startInProcess();
    app = await host.app({ auth: true, checkInterval: 0 });
    for (let i = 0; i < 50; i++) {
        await createState(host.storage, `${P}.n${i}`, { type: 'number' }, 0);
    }
    await createState(host.storage, `${P}.flag`, { type: 'boolean' }, false);
    await createState(host.storage, `${P}.text`, { type: 'string' }, '');
    // readable by everyone, writable only by its owner (the administrator)
    await host.storage.objects.setObjectAsync(`${P}.locked`, {
        _id: `${P}.locked`,
        type: 'state',
        common: { name: 'locked', type: 'number', role: 'value', read: true, write: true },
        native: {},
        acl: ADMIN_ONLY,
    });
    await host.storage.states.setStateAsync(`${P}.locked`, { val: 1, ack: true, from: 'system.adapter.test.0' });
    await createUser(host.storage, 'writer', { state: { read: true, write: true, list: true }, object: { read: true, list: true } }, 'w');
});
t.teardown(async () => {
    await app?.close();
    await host?.stop();
});

const val = async (id: string) => (await host.storage.states.getStateAsync(id))?.val;

t.test('PATCH /v1/states writes every id, converted by its type; 200 when all succeeded', async t => {
    const body: Record<string, unknown> = {};
    for (let i = 0; i < 50; i++) {
        body[`${P}.n${i}`] = i % 2 ? i : String(i);
    }
    body[`${P}.flag`] = { val: 'on', ack: true };
    body[`${P}.text`] = 'hello';
    const res = await app.request('/v1/states', { method: 'PATCH', body, headers: admin });
    t.equal(res.status, 200);
    t.same(Object.keys(res.json), Object.keys(body), 'one answer per id, in the order asked');
    t.same(res.json[`${P}.n4`], { val: 4, ack: false }, 'text converted to a number');
    t.same(res.json[`${P}.flag`], { val: true, ack: true }, 'a state object with val and ack');
    for (let i = 0; i < 50; i++) {
        t.equal(await val(`${P}.n${i}`), i, `${P}.n${i} stored`);
    }
    t.equal(await val(`${P}.flag`), true);
    t.equal((await app.request(`/v1/state/${P}.n7`, { headers: admin })).json.val, 7, 'read back at once');
});

t.test('mixed success: unknown id, wrong type, no permission; the others are written; 207', async t => {
    const body = {
        [`${P}.n1`]: 101,
        [`${P}.missing`]: 5,
        [`${P}.flag`]: 'not a boolean',
        [`${P}.locked`]: 9,
        [`${P}.n2`]: { val: 102, ack: true },
    };
    const res = await app.request('/v1/states', { method: 'PATCH', body, headers: basic('writer', 'w') });
    t.equal(res.status, 207);
    t.same(res.json[`${P}.n1`], { val: 101, ack: false });
    t.same(res.json[`${P}.n2`], { val: 102, ack: true });
    t.equal(res.json[`${P}.missing`].status, 404, 'an unknown id');
    t.equal(res.json[`${P}.flag`].status, 422, 'a value the boolean state cannot take');
    t.match(res.json[`${P}.flag`].error, /boolean/);
    t.same(res.json[`${P}.locked`], { error: 'permissionError', status: 403 }, 'no write right on that state');
    t.equal(await val(`${P}.n1`), 101, 'the others were written');
    t.equal(await val(`${P}.n2`), 102);
    t.equal(await val(`${P}.locked`), 1, 'the refused one is unchanged');
    t.equal(await val(`${P}.flag`), true, 'the refused value was not written');
});

t.test('PATCH /v1/states errors: not an object, too many ids, no JSON, no right', async t => {
    let res = await app.request('/v1/states', { method: 'PATCH', body: [1, 2], headers: admin });
    t.equal(res.status, 422);
    t.match(res.json.error, /JSON object/);
    const many: Record<string, number> = {};
    for (let i = 0; i <= 10_000; i++) {
        many[`${P}.x${i}`] = i;
    }
    res = await app.request('/v1/states', { method: 'PATCH', body: many, headers: admin });
    t.equal(res.status, 413);
    t.match(res.json.error, /At most 10000 ids/);
    t.equal(await val(`${P}.x0`), undefined, 'nothing written');
    res = await app.request('/v1/states', { method: 'PATCH', raw: '{broken', headers: { ...admin, 'Content-Type': 'application/json' } });
    t.equal(res.status, 400);
    await createUser(host.storage, 'reader', { state: { read: true } }, 'r');
    res = await app.request('/v1/states', { method: 'PATCH', body: { [`${P}.n1`]: 1 }, headers: basic('reader', 'r') });
    t.same([res.status, res.json], [403, { error: 'permissionError' }]);
    t.equal(await val(`${P}.n1`), 101);
});

t.test('the setStates command: GET with JSON text, POST with a body, the same answers', async t => {
    let res = await app.request(`/v1/command/setStates?states=${encodeURIComponent(JSON.stringify({ [`${P}.n3`]: 33 }))}`, { headers: admin });
    t.same([res.status, res.json], [200, { error: null, result: { [`${P}.n3`]: { val: 33, ack: false } } }]);
    t.equal(await val(`${P}.n3`), 33);
    res = await app.request('/v1/command/setStates', { method: 'POST', body: { states: { [`${P}.n3`]: 34, [`${P}.nothing`]: 1 } }, headers: admin });
    t.equal(res.status, 207);
    t.same(res.json.result[`${P}.n3`], { val: 34, ack: false });
    t.equal(res.json.result[`${P}.nothing`].status, 404);
    res = await app.request('/v1/command/setStates?states=not-json', { headers: admin });
    t.equal(res.status, 422);
    res = await app.request('/v1/command/setStates', { headers: admin });
    t.equal(res.status, 422);
    t.match(res.json.error, /states/);
});

t.test('POST /v1/states/query: the listed ids, optionally some fields; unknown and forbidden per id', async t => {
    await host.storage.objects.setObjectAsync(`${P}.secret`, {
        _id: `${P}.secret`,
        type: 'state',
        common: { name: 'secret', type: 'number', role: 'value', read: true, write: true },
        native: {},
        acl: { ...ADMIN_ONLY, state: 0x600 },
    });
    await host.storage.states.setStateAsync(`${P}.secret`, { val: 42, ack: true, from: 'system.adapter.test.0' });
    const ids = [`${P}.n1`, `${P}.secret`, `${P}.missing`, `${P}.flag`];
    let res = await app.request('/v1/states/query', { method: 'POST', body: { ids }, headers: admin });
    t.equal(res.status, 200);
    t.same(Object.keys(res.json), ids);
    t.match(res.json[`${P}.n1`], { val: 101, ack: false, ts: Number });
    t.equal(res.json[`${P}.secret`].val, 42, 'the administrator reads it');
    t.same(res.json[`${P}.missing`], { error: 'not found', status: 404 });
    res = await app.request('/v1/states/query', { method: 'POST', body: { ids, fields: ['val', 'ack'] }, headers: basic('writer', 'w') });
    t.same(res.json[`${P}.n1`], { val: 101, ack: false }, 'only the fields asked for');
    t.same(res.json[`${P}.secret`], { error: 'permissionError', status: 403 }, 'a limited user: forbidden per id, never the value');
    t.same(res.json[`${P}.flag`], { val: true, ack: true });
    res = await app.request('/v1/states/query', { method: 'POST', body: { ids, fields: ['val', 'colour'] }, headers: admin });
    t.equal(res.status, 422);
    t.match(res.json.error, /fields.*unknown value "colour"/);
    res = await app.request('/v1/states/query', { method: 'POST', body: { fields: ['val'] }, headers: admin });
    t.equal(res.status, 422, 'ids missing');
    res = await app.request('/v1/states/query', { method: 'POST', body: { ids: Array.from({ length: 10_001 }, (_, i) => `a.${i}`) }, headers: admin });
    t.equal(res.status, 413);
    res = await app.request('/v1/state/' + `${P}.n1,${P}.n2`, { headers: admin });
    t.same(
        res.json.map((s: { val: number }) => s.val),
        [101, 102],
        'the comma form is unchanged',
    );
});
