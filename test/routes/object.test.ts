import t from 'tap';
import { startInProcess, type InProcessHost } from '../support/in-process';
import { appFixture, type AppFixture } from '../support/in-process-fixture';

let host: InProcessHost;
let iob: AppFixture;
t.before(async () => {
    host = await startInProcess();
    iob = await appFixture(host);
    await iob.createState('0_userdata.0.obj1', { type: 'number' }, 1);
    await iob.storage.objects.setObjectAsync('enum.rooms.kitchen', {
        _id: 'enum.rooms.kitchen',
        type: 'enum',
        common: { name: 'Kitchen', members: ['0_userdata.0.obj1'] },
        native: {},
    });
});
t.teardown(async () => {
    await iob?.close();
    await host?.stop();
});

const newObject = { type: 'state', common: { name: 'created', type: 'number', role: 'value', read: true, write: true }, native: { a: [1], b: 2 } };

t.test('reads an object', async t => {
    const res = await iob.request('/v1/object/system.adapter.rest-api.0');
    t.equal(res.status, 200);
    t.match(res.json, { _id: 'system.adapter.rest-api.0', type: 'instance' });
});

t.test('unknown object answers 404 object not found', async t => {
    const res = await iob.request('/v1/object/no.such.object');
    t.equal(res.status, 404);
    t.equal(res.json.error, 'object not found');
});

t.test('POST creates, a second POST answers 409', async t => {
    let res = await iob.request('/v1/object/0_userdata.0.created', { method: 'POST', body: newObject });
    t.equal(res.status, 200);
    t.match(res.json, { type: 'state', common: { name: 'created' }, from: 'system.adapter.rest-api.0', user: 'system.user.admin' });
    t.match(await iob.storage.objects.getObjectAsync('0_userdata.0.created'), { common: { name: 'created' } });
    res = await iob.request('/v1/object/0_userdata.0.created', { method: 'POST', body: newObject });
    t.equal(res.status, 409);
    t.same(res.json, { error: 'Object already exists', id: '0_userdata.0.created' });
});

t.test('POST refuses bodies that are not objects', async t => {
    let res = await iob.request('/v1/object/0_userdata.0.bad', { method: 'POST', body: { foo: 1 } });
    t.equal(res.status, 422);
    res = await iob.request('/v1/object/0_userdata.0.bad', { method: 'POST', raw: '{nope', headers: { 'Content-Type': 'application/json' } });
    t.equal(res.status, 400);
    res = await iob.request('/v1/object/0_userdata.0.bad', { method: 'POST' });
    t.equal(res.status, 422);
    t.equal(await iob.storage.objects.getObjectAsync('0_userdata.0.bad'), null);
});

t.test('PUT merges one level deep: null deletes, arrays replace', async t => {
    const res = await iob.request('/v1/object/0_userdata.0.created', {
        method: 'PUT',
        body: { common: { name: 'renamed', unit: null }, native: { a: [9], b: null, c: 3 } },
    });
    t.equal(res.status, 200);
    const stored = await iob.storage.objects.getObjectAsync('0_userdata.0.created');
    t.equal(stored.common.name, 'renamed');
    t.equal(stored.common.type, 'number', 'other common keys stay');
    t.same(stored.native, { a: [9], c: 3 });
    t.equal(res.json._id, '0_userdata.0.created');
});

t.test('PUT on a missing object creates it', async t => {
    const res = await iob.request('/v1/object/0_userdata.0.putCreated', { method: 'PUT', body: newObject });
    t.equal(res.status, 200);
    t.ok(await iob.storage.objects.getObjectAsync('0_userdata.0.putCreated'));
});

t.test('DELETE removes, a second DELETE answers 404', async t => {
    let res = await iob.request('/v1/object/0_userdata.0.putCreated', { method: 'DELETE' });
    t.equal(res.status, 200);
    t.same(res.json, {});
    t.equal(await iob.storage.objects.getObjectAsync('0_userdata.0.putCreated'), null);
    res = await iob.request('/v1/object/0_userdata.0.putCreated', { method: 'DELETE' });
    t.equal(res.status, 404);
    t.same(res.json, { error: 'object not found', objectId: '0_userdata.0.putCreated' });
});

t.test('objects listing with type and enums', async t => {
    let res = await iob.request('/v1/objects?filter=0_userdata.0.obj*');
    t.equal(res.status, 200);
    t.match(res.json['0_userdata.0.obj1'], { type: 'state', enums: { 'enum.rooms.kitchen': 'Kitchen' } });
    res = await iob.request('/v1/objects?filter=system.adapter.rest-api.*&type=instance');
    t.equal(res.status, 200);
    t.ok(res.json['system.adapter.rest-api.0']);
    res = await iob.request('/v1/objects?filter=*&type=bogus');
    t.equal(res.status, 422, 'an unknown type is a client mistake');
    t.type(res.json.error, 'string');
});

t.test('unknown paths and methods answer JSON', async t => {
    let res = await iob.request('/nothing/here');
    t.equal(res.status, 404);
    t.match(res.json, { error: /Not found/ });
    res = await iob.request('/v1/object/x', { method: 'PATCH', body: {} });
    t.equal(res.status, 405);
    t.match(res.headers.allow, /GET/);
});

t.test('/name answers the namespace, only exactly', async t => {
    let res = await iob.request('/name');
    t.equal(res.status, 200);
    t.equal(res.text, 'rest-api.0');
    t.match(res.headers['content-type'], /^text\/plain/);
    res = await iob.request('/namesXYZ');
    t.equal(res.status, 404);
});

t.test('favicon is served', async t => {
    const res = await iob.request('/favicon.ico');
    t.equal(res.status, 200);
    t.equal(res.headers['content-type'], 'image/x-icon');
});
