import t from 'tap';
import { loadCommands } from '../../src/command-runtime/load-commands';
import { startInProcess, type InProcessApp, type InProcessHost } from '../support/in-process';

let host: InProcessHost;
let app: InProcessApp;
/** A fresh app with this config, as a restart of the adapter gave. */
async function configure(native: Record<string, unknown> = {}): Promise<void> {
    await app?.close();
    app = await host.app(native);
}
t.before(async () => {
    host = await startInProcess();
    await configure();
});
t.teardown(async () => {
    await app?.close();
    await host?.stop();
});

t.test('getVersion, getAdapterName, getCurrentInstance', async t => {
    const pkg = require('../../../package.json');
    let res = await app.request('/v1/command/getVersion');
    t.same(res.json, { error: null, results: [pkg.version, 'rest-api'] });
    res = await app.request('/v1/command/getAdapterName');
    t.same(res.json, { error: null, result: 'rest-api' });
    res = await app.request('/v1/command/getCurrentInstance', { method: 'POST', body: {} });
    t.same(res.json, { error: null, result: 'rest-api.0' });
});

t.test('listPermissions names every command and route with the permission it enforces', async t => {
    const res = await app.request('/v1/command/listPermissions');
    t.equal(res.status, 200);
    const table = res.json.result as Record<string, { type: string; operation: string }>;
    t.same(table.getState, { type: 'state', operation: 'read' });
    t.same(table.getVersion, { type: '', operation: '' });
    t.same(table.getObjects, { type: 'object', operation: 'read' }, 'as the command file says (the old hand-made table said list)');
    t.same(table['GET /v1/state/{stateId}'], { type: 'state', operation: 'read' });
    const registry = loadCommands();
    const expected: Record<string, unknown> = {};
    for (const [name, cmd] of registry) {
        expected[name] = cmd.permission ?? { type: '', operation: '' };
    }
    const doc = (await app.request('/api-docs/openapi.json')).json;
    for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, { 'x-permission'?: unknown }>>)) {
        if (path.startsWith('/v1/command/')) {
            continue;
        }
        for (const [method, op] of Object.entries(methods)) {
            expected[`${method.toUpperCase()} ${path}`] = op['x-permission'] ?? { type: '', operation: '' };
        }
    }
    t.same(table, expected, 'every command of the registry and every documented route, nothing else');
    t.ok(Object.keys(table).length > 100, `${Object.keys(table).length} entries`);
});

t.test('getUserPermissions for admin', async t => {
    const res = await app.request('/v1/command/getUserPermissions');
    t.match(res.json.result, { user: 'system.user.admin', state: { read: true, write: true } });
});

t.test('unknown commands and prototype names answer 404', async t => {
    for (const name of ['noSuchCommand', 'constructor', 'toString', '__proto__', 'hasOwnProperty', 'cmdExec', 'sendToHost']) {
        const res = await app.request(`/v1/command/${name}`);
        t.equal(res.status, 404, name);
        t.same(res.json, { error: `Command ${name} not found` });
    }
});

t.test('commands accept GET and POST only', async t => {
    const res = await app.request('/v1/command/getVersion', { method: 'DELETE' });
    t.equal(res.status, 405);
});

t.test('noAdminCommands hides admin commands, noCommands all', async t => {
    await configure({ noAdminCommands: true });
    let res = await app.request('/v1/command/getCurrentInstance');
    t.same(res.json, { error: 'Command getCurrentInstance not found' });
    res = await app.request('/v1/command/getVersion');
    t.equal(res.status, 200);
    let doc = (await app.request('/api-docs/openapi.json')).json;
    t.notOk(doc.paths['/v1/command/getCurrentInstance']);
    t.ok(doc.paths['/v1/command/getVersion']);

    await configure({ noAdminCommands: false, noCommands: true });
    res = await app.request('/v1/command/getVersion');
    t.equal(res.status, 404);
    t.same(res.json, { error: 'Commands are disabled' });
    doc = (await app.request('/api-docs/openapi.json')).json;
    t.notOk(Object.keys(doc.paths).some(p => p.startsWith('/v1/command/')));
    await configure({ noCommands: false });
});
