import t from 'tap';
import { startIobroker, type IobFixture } from '../support/iobroker';

let iob: IobFixture;
t.before(async () => {
    iob = await startIobroker();
});
t.teardown(() => iob?.stop());

t.test('getVersion, getAdapterName, getCurrentInstance', async t => {
    const pkg = require('../../../package.json');
    let res = await iob.request('/v1/command/getVersion');
    t.same(res.json, { error: null, results: [pkg.version, 'rest-api'] });
    res = await iob.request('/v1/command/getAdapterName');
    t.same(res.json, { error: null, result: 'rest-api' });
    res = await iob.request('/v1/command/getCurrentInstance', { method: 'POST', body: {} });
    t.same(res.json, { error: null, result: 'rest-api.0' });
});

t.test('listPermissions answers the table with 200', async t => {
    const res = await iob.request('/v1/command/listPermissions');
    t.equal(res.status, 200);
    t.same(res.json.result.getState, { type: 'state', operation: 'read' });
    t.same(res.json.result.getVersion, { type: '', operation: '' });
});

t.test('getUserPermissions for admin', async t => {
    const res = await iob.request('/v1/command/getUserPermissions');
    t.match(res.json.result, { user: 'system.user.admin', state: { read: true, write: true } });
});

t.test('unknown commands and prototype names answer 404', async t => {
    for (const name of ['noSuchCommand', 'constructor', 'toString', '__proto__', 'hasOwnProperty', 'cmdExec', 'sendToHost']) {
        const res = await iob.request(`/v1/command/${name}`);
        t.equal(res.status, 404, name);
        t.same(res.json, { error: `Command ${name} not found` });
    }
});

t.test('commands accept GET and POST only', async t => {
    const res = await iob.request('/v1/command/getVersion', { method: 'DELETE' });
    t.equal(res.status, 405);
});

t.test('noAdminCommands hides admin commands, noCommands all', async t => {
    await iob.restart({ noAdminCommands: true });
    let res = await iob.request('/v1/command/getCurrentInstance');
    t.same(res.json, { error: 'Command getCurrentInstance not found' });
    res = await iob.request('/v1/command/getVersion');
    t.equal(res.status, 200);
    let doc = (await iob.request('/api-docs/openapi.json')).json;
    t.notOk(doc.paths['/v1/command/getCurrentInstance']);
    t.ok(doc.paths['/v1/command/getVersion']);

    await iob.restart({ noAdminCommands: false, noCommands: true });
    res = await iob.request('/v1/command/getVersion');
    t.equal(res.status, 404);
    t.same(res.json, { error: 'Commands are disabled' });
    doc = (await iob.request('/api-docs/openapi.json')).json;
    t.notOk(Object.keys(doc.paths).some(p => p.startsWith('/v1/command/')));
    await iob.restart({ noCommands: false });
});
