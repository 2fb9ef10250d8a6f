/*
 * The write side of the access policy, tried as an attacker with a limited account would: every path
 * that writes an object, a state, a file or a password, against ids that only administrators change,
 * objects whose own acl refuses the write, and accounts stronger than the caller's.
 */
import t from 'tap';
import { createState, createUser } from '../support/iobroker';
import { startInProcess, type InProcessApp, type InProcessHost } from '../support/in-process';
import { basic } from '../support/raw-request';
import { fakeInstance } from '../support/fake-instance';

const ADMIN = basic('admin', 'iobroker');
const MALLORY = basic('mallory', 'm-pass');
const MANAGER = basic('manager', 'g-pass');
const CREATOR = basic('creator', 'c-pass');
const FILER = basic('filer', 'f-pass');
const LOCKED_ACL = { owner: 'system.user.admin', ownerGroup: 'system.group.administrator', object: 0x644, state: 0x644 };

let host: InProcessHost;
let app: InProcessApp;

const objectOf = (id: string) => host.storage.objects.getObjectAsync(id);
const command = (name: string, body: unknown, headers = MALLORY) => app.request(`/v1/command/${name}`, { method: 'POST', headers, body });

t.before(async () => {
    host = await startInProcess();
    await createUser(host.storage, 'mallory', { object: { read: true, write: true, list: true, delete: true }, state: { read: true, write: true, list: true, delete: true } }, 'm-pass');
    await createUser(host.storage, 'manager', { users: { read: true, write: true, create: true, delete: true, list: true }, object: { read: true, write: true }, state: { read: true } }, 'g-pass');
    await createUser(host.storage, 'creator', { users: { create: true }, object: { read: true, write: true } }, 'c-pass');
    await createUser(host.storage, 'filer', { file: { read: true, write: true, create: true, delete: true, list: true } }, 'f-pass');
    await createUser(host.storage, 'strong', { object: { read: true, write: true }, file: { read: true, write: true } }, 's-pass');
    await createUser(host.storage, 'weak', { state: { read: true } }, 'w-pass');
    await createState(host.storage, '0_userdata.0.mine', { type: 'number' }, 1);
    await createState(host.storage, '0_userdata.0.locked', { type: 'number' }, 1);
    await host.storage.objects.extendObjectAsync('0_userdata.0.locked', { acl: LOCKED_ACL });
    await createState(host.storage, '0_userdata.0.tree.open', { type: 'number' }, 1);
    await createState(host.storage, '0_userdata.0.tree.shut', { type: 'number' }, 1);
    await host.storage.objects.extendObjectAsync('0_userdata.0.tree.shut', { acl: LOCKED_ACL });
    await createState(host.storage, 'alias.0.to-alive', { type: 'boolean', alias: { id: 'system.adapter.rest-api.0.alive' } } as never);
    app = await host.app({ auth: true });
});
t.teardown(async () => {
    await app?.close();
    await host?.stop();
});

t.test('a user with object.write cannot make itself administrator, by any object write path', async t => {
    const group = await objectOf('system.group.administrator');
    const widened = { ...group, common: { ...group.common, members: [...group.common.members, 'system.user.mallory'] } };
    const attempts = [
        await command('setObject', { id: 'system.group.administrator', obj: widened }),
        await command('extendObject', { id: 'system.group.administrator', obj: { common: { members: widened.common.members } } }),
        await app.request('/v1/object/system.group.administrator', { method: 'PUT', headers: MALLORY, body: { common: { members: widened.common.members } } }),
        await app.request('/v1/command/setObject?id=system.group.administrator&obj=' + encodeURIComponent(JSON.stringify(widened)), { headers: MALLORY }),
    ];
    t.same(attempts.map(res => res.status), [403, 403, 403, 403], 'every path refuses');
    t.notOk((await objectOf('system.group.administrator')).common.members.includes('system.user.mallory'), 'the group is unchanged');
    const permissions = await app.request('/v1/command/getUserPermissions', { headers: MALLORY });
    t.notMatch(JSON.stringify(permissions.json), /administrator/);
    const secret = await app.request('/v1/command/getCompactSystemConfig', { headers: MALLORY });
    t.notMatch(JSON.stringify(secret.json ?? {}), /secret/, 'no system secret');
});

t.test('nor creates a group of its own, or a decoy account object elsewhere', async t => {
    const fullGroup = { type: 'group', common: { name: 'mine', members: ['system.user.mallory'], acl: { file: { write: true }, users: { write: true } } }, native: {} };
    let res = await app.request('/v1/object/system.group.mine', { method: 'POST', headers: MALLORY, body: fullGroup });
    t.equal(res.status, 403, 'groups need the users right');
    t.notOk(await objectOf('system.group.mine'));
    for (const type of ['group', 'user', 'instance', 'adapter', 'host']) {
        res = await command('setObject', { id: `0_userdata.0.decoy-${type}`, obj: { ...fullGroup, type } });
        t.equal(res.status, 403, `type ${type} outside its place`);
        t.notOk(await objectOf(`0_userdata.0.decoy-${type}`));
    }
});

t.test('ids that configure the host, its adapters and logins are for administrators only', async t => {
    const targets: Array<[string, unknown]> = [
        ['system.user.admin', { common: { enabled: false } }],
        ['system.adapter.rest-api.0', { native: { auth: false } }],
        ['system.config', { common: { language: 'de' } }],
        ['system.certificates', { native: {} }],
        ['system.repositories', { native: {} }],
        ['system.host.evil', { type: 'host', common: {}, native: {} }],
        ['_design/evil', { type: 'design', common: {}, views: { x: { map: 'function(doc){ while(true){} }' } } }],
        ['rest-api.0.tokens.forged', { type: 'config', common: {}, native: {} }],
    ];
    for (const [id, obj] of targets) {
        const before = await objectOf(id);
        const res = await command('extendObject', { id, obj });
        t.equal(res.status, 403, `extendObject ${id}`);
        t.same(await objectOf(id), before, `${id} unchanged`);
        t.equal((await app.request(`/v1/object/${encodeURIComponent(id)}`, { method: 'DELETE', headers: MALLORY })).status === 403 || !before, true, `DELETE ${id}`);
    }
    t.equal((await objectOf('system.user.admin')).common.enabled, true);
    const admin = await command('extendObject', { id: 'system.config', obj: { common: { city: 'Testcity' } } }, ADMIN);
    t.equal(admin.status, 200, 'the administrator still may');
});

t.test("an object's own acl applies to writes and deletes, recursive ones included", async t => {
    let res = await app.request('/v1/object/0_userdata.0.locked', { method: 'PUT', headers: MALLORY, body: { common: { name: 'taken' } } });
    t.equal(res.status, 403, 'PUT');
    res = await command('setObject', { id: '0_userdata.0.locked', obj: { type: 'state', common: { name: 'taken' }, native: {} } });
    t.equal(res.status, 403, 'setObject');
    res = await command('delObject', { id: '0_userdata.0.locked' });
    t.equal(res.status, 403, 'delObject');
    res = await command('delObjects', { id: '0_userdata.0.tree' });
    t.equal(res.status, 403, 'a recursive delete with a locked child');
    t.ok(await objectOf('0_userdata.0.tree.open'), 'nothing below was deleted');
    t.ok(await objectOf('0_userdata.0.tree.shut'));
    t.not((await objectOf('0_userdata.0.locked')).common.name, 'taken');
    res = await app.request('/v1/object/0_userdata.0.mine', { method: 'PUT', headers: MALLORY, body: { common: { name: 'still mine' } } });
    t.equal(res.status, 200, 'an object without an acl of its own stays writable');
});

t.test('state writes: protected states, locked states and aliases to them, through every write path', async t => {
    const alive = await host.storage.states.getStateAsync('system.adapter.rest-api.0.alive');
    const attempts = [
        await app.request('/v1/state/system.adapter.rest-api.0.alive', { method: 'PATCH', headers: MALLORY, body: { val: false } }),
        await app.request('/v1/state/system.adapter.rest-api.0.alive?value=false', { headers: MALLORY }),
        await command('setState', { id: 'system.adapter.rest-api.0.alive', state: { val: false } }),
        await app.request('/v1/state/alias.0.to-alive', { method: 'PATCH', headers: MALLORY, body: { val: false } }),
        await app.request('/v1/state/0_userdata.0.locked', { method: 'PATCH', headers: MALLORY, body: { val: 99 } }),
        await app.request('/v1/state/0_userdata.0.locked/toggle', { headers: MALLORY }),
        await command('delState', { id: '0_userdata.0.locked' }),
    ];
    t.same(attempts.map(res => res.status), [403, 403, 403, 403, 403, 403, 403]);
    const bulk = await command('setStates', { states: { 'system.adapter.rest-api.0.alive': false, '0_userdata.0.mine': 7 } });
    t.equal(bulk.status, 207, 'a bulk write refuses the protected id and writes the other');
    t.same((await host.storage.states.getStateAsync('system.adapter.rest-api.0.alive'))?.val, alive?.val, 'alive unchanged');
    t.equal((await host.storage.states.getStateAsync('0_userdata.0.locked'))?.val, 1, 'the locked state unchanged');
    t.equal((await host.storage.states.getStateAsync('0_userdata.0.mine'))?.val, 7);
    const own = await app.request('/v1/state/0_userdata.0.mine', { method: 'PATCH', headers: MALLORY, body: { val: 8 } });
    t.equal(own.status, 200, 'a state of its own stays writable');
});

t.test('an account manager cannot reach above its own rights', async t => {
    let res = await command('extendObject', { id: 'system.group.strong_group', obj: { common: { members: ['system.user.strong', 'system.user.manager'] } } }, MANAGER);
    t.equal(res.status, 403, 'joining a group with rights the manager lacks');
    res = await app.request('/v1/object/system.group.more', { method: 'POST', headers: MANAGER, body: { type: 'group', common: { name: 'more', members: ['system.user.manager'], acl: { file: { write: true } } }, native: {} } });
    t.equal(res.status, 403, 'a new group with rights the manager lacks');
    t.notOk(await objectOf('system.group.more'));
    res = await command('changePassword', { user: 'strong', pass: 'taken-over' }, MANAGER);
    t.equal(res.status, 403, "a stronger user's password");
    res = await command('changePassword', { user: 'admin', pass: 'taken-over' }, MANAGER);
    t.equal(res.status, 403, "the admin's password");
    res = await command('delUser', { user: 'strong' }, MANAGER);
    t.equal(res.status, 403, 'deleting a stronger user');
    t.ok(await objectOf('system.user.strong'));
    res = await app.request('/v1/state/0_userdata.0.mine', { headers: basic('strong', 'taken-over') });
    t.equal(res.status, 401, 'the stronger account was not taken over');
    res = await command('changePassword', { user: 'weak', pass: 'new-weak' }, MANAGER);
    t.equal(res.status, 200, "a weaker user's password stays the manager's to set");
    res = await app.request('/v1/object/system.group.less', { method: 'POST', headers: MANAGER, body: { type: 'group', common: { name: 'less', members: [], acl: { state: { read: true } } }, native: {} } });
    t.equal(res.status, 200, 'a group within its rights');
});

t.test('a user who may only create accounts creates one that logs in, and sets no other password', async t => {
    let res = await command('addUser', { user: 'newbie', pass: 'newbie-pass' }, CREATOR);
    t.equal(res.status, 200);
    res = await app.request('/v1/command/getUserPermissions', { headers: basic('newbie', 'newbie-pass') });
    t.not(res.status, 401, 'the new account logs in with its first password');
    res = await app.request('/v1/command/getUserPermissions', { headers: basic('newbie', 'wrong') });
    t.equal(res.status, 401, 'and with no other');
    res = await command('changePassword', { user: 'newbie', pass: 'again' }, CREATOR);
    t.equal(res.status, 403, 'a second password is a write');
    res = await command('changePassword', { user: 'weak', pass: 'taken' }, CREATOR);
    t.equal(res.status, 403, "another account's password");
});

t.test("files: an adapter's own pages are for administrators, user areas stay writable", async t => {
    for (const area of ['admin', 'rest-api', 'javascript.admin']) {
        const res = await command('writeFile64', { adapter: area, fileName: 'evil.html', data64: Buffer.from('<script>1</script>').toString('base64') }, FILER);
        t.equal(res.status, 403, `writeFile64 into ${area}`);
        t.notOk(await host.storage.objects.fileExists(area, 'evil.html').catch(() => false), 'nothing written');
    }
    const upload = await app.request('/v1/file/admin/evil.html', { method: 'POST', headers: { ...FILER, 'Content-Type': 'application/octet-stream' }, raw: '<script>1</script>' });
    t.equal(upload.status, 403, 'the file route refuses too');
    await host.storage.objects.writeFileAsync('0_userdata.0', 'notes.txt', 'shared', { mode: 0x666 });
    const own = await command('writeFile64', { adapter: '0_userdata.0', fileName: 'notes.txt', data64: Buffer.from('hello').toString('base64') }, FILER);
    t.equal(own.status, 200, `user data stays writable ${JSON.stringify(own.json)}`);
});

t.test('messages that change history need write rights on every state they name', async t => {
    await createUser(host.storage, 'reader', { state: { read: true, list: true }, object: { read: true }, other: { sendto: true } }, 'r-pass');
    await createUser(host.storage, 'writer', { state: { read: true, write: true }, object: { read: true }, other: { sendto: true } }, 'x-pass');
    const history = await fakeInstance({ storage: host.storage } as never, 'history.0', () => ({ result: [] }));
    await host.storage.objects.extendObjectAsync('system.adapter.history.0', { common: { getHistory: true, type: 'storage' } });
    try {
        const READER = basic('reader', 'r-pass');
        for (const [message, data] of [
            ['storeState', { id: '0_userdata.0.mine', state: { val: 666, ts: 1 } }],
            ['deleteAll', [{ id: '0_userdata.0.mine' }]],
            ['enableHistory', { id: '0_userdata.0.mine', options: {} }],
        ] as const) {
            let res = await app.request('/v1/sendto/history.0', { method: 'POST', headers: READER, body: { message, data } });
            t.equal(res.status, 403, `${message} by a reader, through /v1/sendto`);
            res = await app.request('/v1/command/sendTo', { method: 'POST', headers: READER, body: { adapterInstance: 'history.0', command: message, message: data } });
            t.equal(res.status, 403, `${message} by a reader, through the command`);
        }
        t.same(history.received, [], 'the history instance got none of them');
        let res = await app.request('/v1/sendto/history.0', { method: 'POST', headers: basic('writer', 'x-pass'), body: { message: 'deleteAll', data: {} } });
        t.equal(res.status, 422, 'a changing message naming no state');
        res = await app.request('/v1/sendto/history.0', { method: 'POST', headers: basic('writer', 'x-pass'), body: { message: 'storeState', data: { id: '0_userdata.0.locked', state: { val: 1, ts: 1 } } } });
        t.equal(res.status, 403, 'a writer, on a state it may not write');
        res = await app.request('/v1/sendto/history.0', { method: 'POST', headers: basic('writer', 'x-pass'), body: { message: 'storeState', data: { id: '0_userdata.0.mine', state: { val: 1, ts: 1 } } } });
        t.equal(res.status, 200, 'a writer, on a state it may write');
        res = await app.request('/v1/sendto/history.0', { method: 'POST', headers: READER, body: { message: 'getHistory', data: { id: '0_userdata.0.mine', options: {} } } });
        t.equal(res.status, 200, 'reading history stays a read');
        t.same(history.received.map(m => m.command), ['storeState', 'getHistory']);
    } finally {
        await history.close();
    }
});
