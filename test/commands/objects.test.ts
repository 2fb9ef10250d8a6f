import t from 'tap';
import { createState } from '../support/iobroker';
import { startInProcess, type InProcessApp, type InProcessHost } from '../support/in-process';

let host: InProcessHost;
let app: InProcessApp;
t.before(async () => {
    host = await startInProcess();
    app = await host.app();
    await createState(host.storage, '0_userdata.0.o1', { type: 'number' }, 1);
    await createState(host.storage, '0_userdata.0.o2', { type: 'number' }, 2);
});
t.teardown(async () => {
    await app?.close();
    await host?.stop();
});

const obj = { type: 'state', common: { name: 'cmd', type: 'string', role: 'text', read: true, write: true }, native: {} };

t.test('getObject', async t => {
    let res = await app.request('/v1/command/getObject?id=0_userdata.0.o1');
    t.match(res.json, { error: null, result: { _id: '0_userdata.0.o1', type: 'state' } });
    res = await app.request('/v1/command/getObject?id=no.such');
    t.same(res.json, { error: null, result: null });
    res = await app.request('/v1/command/getObject');
    t.equal(res.status, 422);
});

t.test('getObjects by list, by pattern, all', async t => {
    let res = await app.request('/v1/command/getObjects', { method: 'POST', body: { list: ['0_userdata.0.o1', 'no.such'] } });
    t.same(Object.keys(res.json.result), ['0_userdata.0.o1']);
    res = await app.request(`/v1/command/getObjects?list=${encodeURIComponent('["0_userdata.0.o2"]')}`);
    t.same(Object.keys(res.json.result), ['0_userdata.0.o2']);
    res = await app.request('/v1/command/getObjects?list');
    t.ok(Object.keys(res.json.result).length > 2);
    res = await app.request('/v1/command/getObjects', { method: 'POST', body: { list: { a: 1 } } });
    t.equal(res.status, 422);
});

t.test('getForeignObjects with and without type', async t => {
    let res = await app.request('/v1/command/getForeignObjects?pattern=0_userdata.0.o*');
    t.same(Object.keys(res.json.result).sort(), ['0_userdata.0.o1', '0_userdata.0.o2']);
    res = await app.request('/v1/command/getForeignObjects?pattern=system.adapter.rest-api.*&type=instance');
    t.ok(res.json.result['system.adapter.rest-api.0']);
    res = await app.request('/v1/command/getForeignObjects?type=state');
    t.equal(res.status, 422);
});

t.test('setObject, extendObject, delObject', async t => {
    let res = await app.request('/v1/command/setObject', { method: 'POST', body: { id: '0_userdata.0.cmd', obj } });
    t.same(res.json, { error: null, result: { id: '0_userdata.0.cmd' } });
    t.match(await host.storage.objects.getObjectAsync('0_userdata.0.cmd'), { common: { name: 'cmd' } });

    res = await app.request(`/v1/command/extendObject?id=0_userdata.0.cmd&obj=${encodeURIComponent('{"common":{"name":"extended"}}')}`);
    t.equal(res.status, 200);
    t.match(res.json.result, { id: '0_userdata.0.cmd', value: { common: { name: 'extended', type: 'string' } } });

    res = await app.request('/v1/command/delObject?id=0_userdata.0.cmd');
    t.same(res.json, { error: null, results: [] });
    t.equal(await host.storage.objects.getObjectAsync('0_userdata.0.cmd'), null);
});

t.test('delObject recursive', async t => {
    await createState(host.storage, '0_userdata.0.tree.a', {});
    await createState(host.storage, '0_userdata.0.tree.b', {});
    await host.storage.objects.setObjectAsync('0_userdata.0.tree', { type: 'folder', common: { name: 'tree' }, native: {} });
    const res = await app.request(`/v1/command/delObject?id=0_userdata.0.tree&options=${encodeURIComponent('{"recursive":true}')}`);
    t.equal(res.status, 200);
    t.equal(await host.storage.objects.getObjectAsync('0_userdata.0.tree.a'), null);
});

t.test('object command errors', async t => {
    let res = await app.request('/v1/command/setObject?id=0_userdata.0.x&obj=notjson');
    t.equal(res.status, 422);
    res = await app.request(`/v1/command/setObject?id=0_userdata.0.x&obj=${encodeURIComponent('{"type":"state"')}`);
    t.equal(res.status, 422);
    t.match(res.json.error, /Cannot parse obj/);
    res = await app.request('/v1/command/setObject', { method: 'POST', body: { id: '0_userdata.0.x', obj: { native: {} } } });
    t.equal(res.status, 422);
    t.equal(await host.storage.objects.getObjectAsync('0_userdata.0.x'), null);
    res = await app.request('/v1/command/extendObject?id=0_userdata.0.x');
    t.equal(res.status, 422);
    res = await app.request('/v1/command/delObject');
    t.equal(res.status, 422);
    t.same(res.json.results, [], 'results commands keep an empty results array on errors');
    await host.storage.objects.setObjectAsync('0_userdata.0.keep', { type: 'state', common: { name: 'keep', dontDelete: true }, native: {} });
    const kept = await app.request('/v1/command/delObject?id=0_userdata.0.keep');
    t.equal(kept.status, 422, 'an object marked dontDelete cannot be deleted');
    t.equal(kept.json.error, 'not deletable');
    t.ok(await host.storage.objects.getObjectAsync('0_userdata.0.keep'));
});

t.test('getObjectView', async t => {
    let res = await app.request(`/v1/command/getObjectView?design=system&search=state&params=${encodeURIComponent('{"startkey":"0_userdata.0.o","endkey":"0_userdata.0.o\u9999"}')}`);
    t.equal(res.status, 200);
    t.same(res.json.result.rows.map((r: { id: string }) => r.id).sort(), ['0_userdata.0.o1', '0_userdata.0.o2']);
    res = await app.request('/v1/command/getObjectView?design=system&search=bogus');
    t.equal(res.status, 422);
    res = await app.request('/v1/command/getObjectView?design=system');
    t.equal(res.status, 422);
});
