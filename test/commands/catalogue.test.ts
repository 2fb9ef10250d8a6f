/*
 * The whole catalogue of 4.0.2 at once: every command exists, is documented, refuses a user without
 * rights before looking at its parameters, and names every missing required parameter.
 * In this process: two apps (admin by default, a user without rights by default) on one adapter.
 */
import t from 'tap';
import { loadCommands } from '../../src/command-runtime/load-commands';
import { createUser } from '../support/iobroker';
import { startInProcess, type InProcessApp, type InProcessHost } from '../support/in-process';

const CATALOGUE = {
    states: ['getStates', 'getForeignStates', 'getState', 'setState', 'getBinaryState', 'setBinaryState'],
    objects: ['getObject', 'getObjects', 'getObjectView', 'setObject', 'delObject'],
    files: ['readFile', 'readFile64', 'writeFile64', 'unlink', 'deleteFile', 'deleteFolder', 'renameFile', 'rename', 'mkdir', 'readDir', 'chmodFile', 'chownFile', 'fileExists'],
    administration: [
        'getHostByIp', 'readLogs', 'delState', 'getRatings', 'getCurrentInstance', 'decrypt', 'encrypt', 'getAdapters', 'updateLicenses',
        'getCompactInstances', 'getCompactAdapters', 'getCompactInstalled', 'getCompactSystemConfig', 'getCompactSystemRepositories',
        'getCompactRepository', 'getCompactHosts', 'addUser', 'delUser', 'addGroup', 'delGroup', 'changePassword', 'getAllObjects',
        'extendObject', 'getForeignObjects', 'delObjects', 'getAdapterInstances',
    ],
    others: [
        'updateTokenExpiration', 'log', 'checkFeatureSupported', 'getHistory', 'httpGet', 'sendTo', 'listPermissions',
        'getUserPermissions', 'getVersion', 'getAdapterName', 'clientSubscribe',
    ],
};

const registry = loadCommands();
let host: InProcessHost;
let admin: InProcessApp;
let nobody: InProcessApp;

t.before(async () => {
    host = await startInProcess();
    await createUser(host.storage, 'nobody', {});
    admin = await host.app();
    nobody = await host.app({ defaultUser: 'nobody' });
});
t.teardown(async () => {
    await admin?.close();
    await nobody?.close();
    await host?.stop();
});

t.test('every command of 4.0.2 exists, with a summary, a schema and GET/POST in the OpenAPI document', async t => {
    const doc = (await admin.request('/api-docs/openapi.json')).json;
    for (const name of Object.values(CATALOGUE).flat()) {
        const cmd = registry.get(name);
        t.ok(cmd, `${name} exists`);
        t.ok(cmd?.summary, `${name} has a summary`);
        t.equal(cmd?.params.type, 'object', `${name} has a params schema`);
        t.ok(doc.paths[`/v1/command/${name}`]?.get && doc.paths[`/v1/command/${name}`]?.post, `${name} is documented`);
    }
});

t.test('a user without rights is refused every command that needs one, before anything runs', async t => {
    for (const [name, cmd] of registry) {
        const res = await nobody.request(`/v1/command/${name}`, { method: 'POST', body: {} });
        if (cmd.permission) {
            t.equal(res.status, 403, `${name} needs ${cmd.permission.type}.${cmd.permission.operation}`);
            t.equal(res.json.error, 'permissionError', name);
        } else {
            t.not(res.status, 403, `${name} needs no right`);
        }
    }
});

t.test('missing required parameters answer 422 naming all of them', async t => {
    for (const [name, cmd] of registry) {
        const required = (cmd.params.required ?? []).filter(p => cmd.params.properties[p].default === undefined);
        if (!required.length) {
            continue;
        }
        const res = await admin.request(`/v1/command/${name}`);
        t.equal(res.status, 422, name);
        t.same(res.json.details.map((d: { param: string }) => d.param), required, `${name} names ${required.join(', ')}`);
        t.match(res.json.error, /not found\. Following arguments are expected/, name);
    }
});
