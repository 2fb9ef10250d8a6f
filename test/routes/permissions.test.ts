import t from 'tap';
import { startInProcess, type InProcessHost } from '../support/in-process';
import { appFixture, type AppFixture } from '../support/in-process-fixture';

// the default user is a limited user: the ACL of its group decides, and js-controller's object ACLs apply
let host: InProcessHost;
let iob: AppFixture;
t.before(async () => {
    host = await startInProcess();
    iob = await appFixture(host, { defaultUser: 'reader' });
    await iob.createUser('reader', { state: { read: true, write: false, list: false }, object: { read: true, list: false } });
    await iob.createState('0_userdata.0.open', { type: 'number' }, 5);
});
t.teardown(async () => {
    await iob?.close();
    await host?.stop();
});

t.test('allowed reads work with the same bodies as for admin', async t => {
    const res = await iob.request('/v1/state/0_userdata.0.open');
    t.equal(res.status, 200);
    t.match(res.json, { val: 5, id: '0_userdata.0.open' });
});

t.test('writes without state.write are refused and store nothing', async t => {
    for (const [path, method, body] of [
        ['/v1/state/0_userdata.0.open?value=9', 'GET', undefined],
        ['/v1/state/0_userdata.0.open/toggle', 'GET', undefined],
        ['/v1/state/0_userdata.0.open', 'PATCH', { val: 9 }],
        ['/v1/command/setState?id=0_userdata.0.open&state=9', 'GET', undefined],
    ] as const) {
        const res = await iob.request(path, { method, body });
        t.equal(res.status, 403, `${method} ${path}`);
        t.equal(res.json.error, 'permissionError');
    }
    t.equal((await iob.storage.states.getStateAsync('0_userdata.0.open')).val, 5);
});

t.test('listing without list rights answers permissionError', async t => {
    let res = await iob.request('/v1/states?filter=0_userdata.0.*');
    t.equal(res.status, 403);
    t.same(res.json, { error: 'permissionError' });
    res = await iob.request('/v1/command/getStates?pattern=0_userdata.0.*');
    t.equal(res.status, 403);
    t.equal(res.json.error, 'permissionError');
});

t.test('object writes without object.write are refused', async t => {
    const res = await iob.request('/v1/object/0_userdata.0.new', { method: 'POST', body: { type: 'state', common: {}, native: {} } });
    t.equal(res.status, 403);
    t.equal(await iob.storage.objects.getObjectAsync('0_userdata.0.new'), null);
});

t.test('getUserPermissions reports the computed ACL', async t => {
    const res = await iob.request('/v1/command/getUserPermissions');
    t.equal(res.status, 200);
    t.match(res.json.result, { user: 'system.user.reader', groups: ['system.group.reader_group'], state: { read: true, write: false } });
});

t.test('a changed group takes effect without restart', async t => {
    const group = await iob.storage.objects.getObjectAsync('system.group.reader_group');
    group.common.acl.state.write = true;
    await iob.storage.objects.setObjectAsync('system.group.reader_group', group);
    let status = 0;
    for (let i = 0; i < 40 && status !== 200; i++) {
        status = (await iob.request('/v1/state/0_userdata.0.open?value=6')).status;
        await new Promise(r => setTimeout(r, 50));
    }
    t.equal(status, 200);
    t.equal((await iob.storage.states.getStateAsync('0_userdata.0.open')).val, 6);
});

t.test('onlyAllowWhenUserIsOwner refuses states of other owners', async t => {
    await iob.createState('0_userdata.0.mine', { type: 'number' }, 1);
    const mine = await iob.storage.objects.getObjectAsync('0_userdata.0.mine');
    mine.acl = { owner: 'system.user.reader', ownerGroup: 'system.group.reader_group', object: 0x664, state: 0x664 };
    await iob.storage.objects.setObjectAsync('0_userdata.0.mine', mine);
    await iob.restart({ onlyAllowWhenUserIsOwner: true });
    const own = await iob.request('/v1/state/0_userdata.0.mine');
    t.equal(own.status, 200);
    const other = await iob.request('/v1/state/system.adapter.rest-api.0.alive');
    t.equal(other.status, 403);
    t.equal(other.json.error, 'permissionError');
});
