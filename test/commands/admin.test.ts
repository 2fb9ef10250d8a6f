import t from 'tap';
import { fakeInstance, type FakeInstance } from '../support/fake-instance';
import { createState, createUser } from '../support/iobroker';
import { startInProcess, type InProcessApp, type InProcessHost } from '../support/in-process';

let server: InProcessHost;
let app: InProcessApp;
let host: FakeInstance;
let hostName = '';

t.before(async () => {
    server = await startInProcess();
    app = await server.app();
    hostName = (await server.storage.objects.getObjectAsync('system.adapter.rest-api.0')).common.host;
    host = await fakeInstance({ storage: server.storage } as never, `system.host.${hostName}`, command => {
        switch (command) {
            case 'getInstalled':
                return { admin: { version: '7.0.0', ignored: 1 }, 'rest-api': { version: '5.0.0' }, hosts: { x: 1 } };
            case 'getRepository':
                return { admin: { version: '7.1.0', extIcon: 'admin.png', other: 1 } };
            case 'getLogFiles':
                return { list: [{ fileName: `log/${hostName}/file1/iobroker.current.log`, size: 10 }] };
            case 'updateLicenses':
                return { result: [{ product: 'test', id: 1 }] };
            default:
                return undefined;
        }
    });
    await createState(server.storage, '0_userdata.0.del', { type: 'number' }, 3);
});
t.teardown(async () => {
    await host?.close();
    await app?.close();
    await server?.stop();
});

const q = (value: unknown): string => encodeURIComponent(JSON.stringify(value));

t.test('binary states are gone: 410 with a clear message', async t => {
    for (const path of ['/v1/command/getBinaryState?id=x', '/v1/command/setBinaryState?id=x&base64=AA==']) {
        const res = await app.request(path);
        t.equal(res.status, 410, path);
        t.match(res.json, { error: /binary states were removed/, results: [] });
    }
    t.equal((await app.request('/v1/command/setBinaryState?id=x')).status, 422);
});

t.test('getHostByIp finds the host by name, or answers null', async t => {
    let res = await app.request(`/v1/command/getHostByIp?ip=${hostName}`);
    t.equal(res.status, 200);
    t.equal(res.json.ip, hostName);
    t.equal(res.json.result._id, `system.host.${hostName}`);
    res = await app.request('/v1/command/getHostByIp?ip=203.0.113.9');
    t.same(res.json, { ip: '203.0.113.9', result: null });
    t.equal((await app.request('/v1/command/getHostByIp')).status, 422);
});

t.test('delState deletes the value, not the object', async t => {
    const res = await app.request('/v1/command/delState?id=0_userdata.0.del');
    t.same(res.json, { error: null, result: '0_userdata.0.del' });
    t.equal(await server.storage.states.getStateAsync('0_userdata.0.del'), null);
    t.ok(await server.storage.objects.getObjectAsync('0_userdata.0.del'));
    t.equal((await app.request('/v1/command/delState')).status, 422);
});

t.test('getRatings answers what the system knows', async t => {
    const res = await app.request('/v1/command/getRatings?update=false');
    t.equal(res.status, 200);
    t.equal(res.json.error, null);
    t.equal((await app.request('/v1/command/getRatings?update=maybe')).status, 422);
});

t.test('encrypt and decrypt round trip with the system secret', async t => {
    const enc = await app.request('/v1/command/encrypt?plainText=s3cret');
    t.equal(enc.status, 200);
    t.not(enc.json.result, 's3cret');
    const dec = await app.request(`/v1/command/decrypt?encryptedText=${encodeURIComponent(enc.json.result)}`);
    t.same(dec.json, { error: null, result: 's3cret' });
    t.equal((await app.request('/v1/command/encrypt')).status, 422);
    t.equal((await app.request('/v1/command/decrypt')).status, 422);
});

t.test('adapter and instance objects', async t => {
    let res = await app.request('/v1/command/getAdapters');
    const names = res.json.result.map((a: { common: { name: string } }) => a.common.name);
    t.ok(names.includes('rest-api'));
    t.notOk(res.json.result[0].native, 'native is left out');
    res = await app.request('/v1/command/getAdapters?adapterName=rest-api');
    t.equal(res.json.result.length, 1);
    t.same(res.json.result[0].common.adminUI, { config: 'json' });
    t.notOk(res.json.result[0].common.news);

    res = await app.request('/v1/command/getAdapterInstances?adapterName=rest-api');
    t.same(res.json.result.map((i: { _id: string }) => i._id), ['system.adapter.rest-api.0']);
    res = await app.request('/v1/command/getAdapterInstances');
    t.ok(res.json.result.length >= 1);

    res = await app.request('/v1/command/getCompactInstances');
    t.match(res.json.result['system.adapter.rest-api.0'], { name: 'rest-api', enabled: true });
    res = await app.request('/v1/command/getCompactAdapters');
    t.match(res.json.result['rest-api'], { v: '5.0.0-alpha.0' });
    res = await app.request('/v1/command/getCompactHosts');
    t.match(res.json.result, [{ _id: `system.host.${hostName}`, common: {}, native: { hardware: {} } }]);
    res = await app.request('/v1/command/getCompactSystemRepositories');
    t.equal(res.status, 200);
});

t.test('getCompactSystemConfig: the secret only for administrators', async t => {
    const res = await app.request('/v1/command/getCompactSystemConfig');
    t.equal(res.status, 200);
    t.type(res.json.result.native.secret, 'string');
    t.equal(res.json.result._id, 'system.config');
});

t.test('host commands go to the host and time out when it does not run', async t => {
    let res = await app.request(`/v1/command/getCompactInstalled?host=${hostName}`);
    t.same(res.json, { error: null, result: { admin: { version: '7.0.0' }, 'rest-api': { version: '5.0.0' } } });
    res = await app.request(`/v1/command/getCompactRepository?host=${hostName}`);
    t.same(res.json, { error: null, result: { admin: { version: '7.1.0', icon: 'admin.png' } } });
    res = await app.request(`/v1/command/readLogs?host=${hostName}`);
    t.match(res.json, { error: null, result: [{ size: 10 }] });
    res = await app.request('/v1/command/updateLicenses', { method: 'POST', body: { login: null, password: null } });
    t.same(res.json, { error: null, result: [{ product: 'test', id: 1 }] });

    await host.setAlive(false);
    res = await app.request(`/v1/command/getCompactInstalled?host=${hostName}`);
    t.equal(res.status, 503);
    t.match(res.json.error, /is not running/);
    res = await app.request(`/v1/command/readLogs?host=${hostName}`);
    t.equal(res.status, 200, 'without a host the local file loggers are listed');
    t.type(res.json.result, Array);
    res = await app.request('/v1/command/updateLicenses');
    t.equal(res.status, 503);
    await host.setAlive(true);
    for (const name of ['getCompactInstalled', 'getCompactRepository', 'readLogs']) {
        t.equal((await app.request(`/v1/command/${name}`)).status, 422, `${name} without host`);
    }
});

t.test('users and groups: create, password, delete', async t => {
    let res = await app.request('/v1/command/addUser', { method: 'POST', body: { user: 'Alice', pass: 'first' } });
    t.same(res.json, { error: null, results: [] });
    const alice = await server.storage.objects.getObjectAsync('system.user.alice');
    t.match(alice, { type: 'user', common: { name: 'Alice', enabled: true } });
    t.match(alice.common.password, /^pbkdf2\$/);
    res = await app.request('/v1/command/addUser', { method: 'POST', body: { user: 'Alice', pass: 'x' } });
    t.equal(res.status, 409);
    t.equal(res.json.error, 'User yet exists');
    res = await app.request('/v1/command/addUser', { method: 'POST', body: { user: 'bad<name>', pass: 'x' } });
    t.equal(res.status, 422);
    t.equal((await app.request('/v1/command/addUser?user=bob')).status, 422);

    const before = alice.common.password;
    res = await app.request('/v1/command/changePassword', { method: 'POST', body: { user: 'alice', pass: 'second' } });
    t.same(res.json, { error: null, results: [] });
    t.not((await server.storage.objects.getObjectAsync('system.user.alice')).common.password, before);
    res = await app.request('/v1/command/changePassword', { method: 'POST', body: { user: 'nobody', pass: 'x' } });
    t.equal(res.status, 404);
    t.equal(res.json.error, 'User does not exist');

    res = await app.request(`/v1/command/addGroup?group=Writers&desc=may%20write&acl=${q({ state: { read: true, write: true } })}`);
    t.equal(res.status, 200);
    t.match(res.json.result, { _id: 'system.group.writers', common: { name: 'Writers', acl: { state: { read: true, write: true, delete: false } } } });
    t.ok(await server.storage.objects.getObjectAsync('system.group.writers'));
    res = await app.request('/v1/command/addGroup?group=Writers');
    t.equal(res.status, 409);
    res = await app.request(`/v1/command/addGroup?group=x&acl=${q({ state: { read: 'yes' } })}`);
    t.equal(res.status, 422);

    const group = await server.storage.objects.getObjectAsync('system.group.writers');
    group.common.members = ['system.user.alice'];
    await server.storage.objects.setObjectAsync('system.group.writers', group);
    res = await app.request('/v1/command/delUser?user=alice');
    t.same(res.json, { error: null, results: [] });
    t.equal(await server.storage.objects.getObjectAsync('system.user.alice'), null);
    t.same((await server.storage.objects.getObjectAsync('system.group.writers')).common.members, [], 'membership removed');
    t.equal((await app.request('/v1/command/delUser?user=alice')).status, 404);

    res = await app.request('/v1/command/delGroup?group=writers');
    t.same(res.json, { error: null, results: [] });
    t.equal(await server.storage.objects.getObjectAsync('system.group.writers'), null);
    t.equal((await app.request('/v1/command/delGroup?group=writers')).status, 404);
    res = await app.request('/v1/command/delGroup?group=administrator');
    t.equal(res.status, 422, 'system groups stay');
    t.ok(await server.storage.objects.getObjectAsync('system.group.administrator'));
});

t.test('getAllObjects and delObjects', async t => {
    let res = await app.request('/v1/command/getAllObjects');
    t.equal(res.status, 200);
    t.ok(res.json.result['system.config']);
    await createState(server.storage, '0_userdata.0.tree.a', {});
    await createState(server.storage, '0_userdata.0.tree.b.c', {});
    res = await app.request('/v1/command/delObjects?id=0_userdata.0.tree');
    t.same(res.json, { error: null, results: [] });
    t.equal(await server.storage.objects.getObjectAsync('0_userdata.0.tree.b.c'), null);
    t.equal((await app.request('/v1/command/delObjects')).status, 422);
});

t.test('a limited user is refused the admin commands and gets no secret', async t => {
    let limited = await server.app({ defaultUser: 'reader' });
    t.teardown(() => limited.close());
    await createUser(server.storage, 'reader', { object: { read: true, list: true } });
    const paths = [
        '/v1/command/delState?id=system.adapter.rest-api.0.alive',
        '/v1/command/encrypt?plainText=x',
        '/v1/command/decrypt?encryptedText=x',
        '/v1/command/getCompactInstalled?host=x',
        '/v1/command/getCompactRepository?host=x',
        '/v1/command/readLogs?host=x',
        '/v1/command/updateLicenses',
        '/v1/command/delObjects?id=0_userdata.0',
        '/v1/command/getBinaryState?id=x',
        '/v1/command/setBinaryState?id=x&base64=AA==',
    ];
    for (const path of paths) {
        const res = await limited.request(path);
        t.equal(res.status, 403, path);
        t.equal(res.json.error, 'permissionError');
    }
    for (const [path, body] of [
        ['/v1/command/addUser', { user: 'mallory', pass: 'x' }],
        ['/v1/command/delUser', { user: 'admin' }],
        ['/v1/command/addGroup', { group: 'evil' }],
        ['/v1/command/delGroup', { group: 'user' }],
        ['/v1/command/changePassword', { user: 'admin', pass: 'owned' }],
    ] as const) {
        const res = await limited.request(path, { method: 'POST', body });
        t.equal(res.status, 403, path);
    }
    t.equal(await server.storage.objects.getObjectAsync('system.user.mallory'), null);
    t.ok(await server.storage.objects.getObjectAsync('system.user.admin'));
    const own = await limited.request('/v1/command/changePassword', { method: 'POST', body: { user: 'reader', pass: 'mine' } });
    t.equal(own.status, 200, 'one\'s own password needs no right');

    const config = await limited.request('/v1/command/getCompactSystemConfig');
    t.equal(config.status, 200);
    t.notOk(config.json.result.native.secret, 'no system secret for a non-administrator');
    for (const name of ['getAdapters', 'getAdapterInstances', 'getCompactInstances', 'getCompactAdapters', 'getCompactHosts', 'getCompactSystemRepositories', 'getRatings']) {
        t.equal((await limited.request(`/v1/command/${name}`)).status, 200, `${name} needs only object read and list`);
    }
    await limited.close();
    limited = await server.app({ defaultUser: 'nobody' });
    await createUser(server.storage, 'nobody', {});
    for (const name of ['getAdapters', 'getAdapterInstances', 'getCompactInstances', 'getCompactAdapters', 'getCompactHosts', 'getCompactSystemRepositories', 'getRatings', 'getCompactSystemConfig']) {
        t.equal((await limited.request(`/v1/command/${name}`)).status, 403, `${name} without object read`);
    }
    for (const path of ['/v1/command/getHostByIp?ip=x', '/v1/command/getAllObjects']) {
        t.equal((await limited.request(path)).status, 403, `${path} without object list`);
    }
});
