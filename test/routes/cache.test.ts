/*
 * The read caches (src/storage/cache/coherent-cache.ts) against real storage: values written by other clients
 * of js-controller, writes through the API, object ACL changes, deletions and a storage outage.
 */
import t from 'tap';
import { startInProcess, type InProcessHost } from '../support/in-process';
import { appFixture, type AppFixture } from '../support/in-process-fixture';

const ID = '0_userdata.0.cached';
let host: InProcessHost;
let iob: AppFixture;
t.before(async () => {
    host = await startInProcess();
    // over a real socket: the tests read in tight loops until a change is notified; requests answered
    // from memory without a socket would never let the notification in
    iob = await appFixture(host, {}, { socket: true });
    await iob.createState(ID, { type: 'number' }, 0);
});
t.teardown(async () => {
    await iob?.close();
    await host?.stop();
});

const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms));
const readVal = async (id = ID): Promise<unknown> => (await iob.request(`/v1/state/${id}`)).json?.val;
const writeElsewhere = (val: number) => iob.storage.states.setStateAsync(ID, { val, ack: true, from: 'system.adapter.other.0' });

t.test('a value written by another client is read back once its notification arrived, never older afterwards', async t => {
    // warm the cache: the first read subscribes, later ones may come from memory
    await readVal();
    await sleep(100);
    const delays: number[] = [];
    for (let val = 1; val <= 20; val++) {
        await writeElsewhere(val);
        const written = Date.now();
        let seen = await readVal();
        while (seen !== val && Date.now() - written < 1000) {
            t.ok((seen as number) >= val - 1, `never older than the previous value (${seen})`);
            seen = await readVal();
        }
        t.equal(seen, val, `value ${val} visible within 1 s`);
        delays.push(Date.now() - written);
        for (let again = 0; again < 3; again++) {
            t.equal(await readVal(), val, 'and stays');
        }
    }
    t.comment(`notification delay: max ${Math.max(...delays)} ms`);
});

t.test('a write through the API is visible to the very next read', async t => {
    for (let val = 100; val < 140; val++) {
        const patch = await iob.request(`/v1/state/${ID}`, { method: 'PATCH', body: { val, ack: true } });
        t.equal(patch.status, 200);
        t.equal(await readVal(), val);
        const plain = await iob.request(`/v1/state/${ID}/plain`);
        t.equal(plain.text, String(val));
        const command = await iob.request(`/v1/command/getState?id=${ID}`);
        t.equal(command.json.result.val, val);
    }
    for (let val = 0; val < 10; val++) {
        await iob.request(`/v1/state/${ID}?value=${val}`);
        t.equal(await readVal(), val, 'GET write');
    }
});

t.test('object changes and ACL changes apply to the next request after their notification', async t => {
    const other = await appFixture(host, { auth: true }, { socket: true });
    t.teardown(() => other.close());
    await other.createUser('reader', { state: { read: true }, object: { read: true } }, 'r');
    const id = '0_userdata.0.guarded';
    const acl = (state: number) => ({ owner: 'system.user.admin', ownerGroup: 'system.group.administrator', object: 0x664, state });
    await other.storage.objects.setObjectAsync(id, { _id: id, type: 'state', common: { name: 'g', role: 'state', type: 'number', read: true, write: true }, native: {}, acl: acl(0x664) });
    await other.storage.states.setStateAsync(id, { val: 7, ack: true, from: 'system.adapter.other.0' });
    const reader = { Authorization: `Basic ${Buffer.from('reader:r').toString('base64')}` };
    t.equal((await other.request(`/v1/state/${id}`, { headers: reader })).json.val, 7);
    await sleep(100);
    t.equal((await other.request(`/v1/state/${id}`, { headers: reader })).status, 200, 'from the cache');

    const obj = await other.storage.objects.getObjectAsync(id);
    await other.storage.objects.setObjectAsync(id, { ...obj, acl: acl(0x600) });
    let status = 200;
    const changed = Date.now();
    while (status === 200 && Date.now() - changed < 1000) {
        status = (await other.request(`/v1/state/${id}`, { headers: reader })).status;
    }
    t.equal(status, 403, 'the closed state is refused');
    t.equal((await other.request(`/v1/state/${id}`, { headers: reader })).status, 403, 'and stays refused');

    await other.storage.objects.setObjectAsync(id, { ...obj, common: { ...obj.common, name: 'renamed' } });
    let name = '';
    while (name !== 'renamed' && Date.now() - changed < 2000) {
        name = (await other.request(`/v1/object/${id}`, { headers: reader })).json?.common?.name;
    }
    t.equal(name, 'renamed', 'an object changed elsewhere is read back');
});

t.test('a state deleted elsewhere answers 404 once the deletion is notified', async t => {
    const id = '0_userdata.0.doomed';
    await iob.createState(id, { type: 'number' }, 5);
    t.equal(await readVal(id), 5);
    await sleep(100);
    t.equal(await readVal(id), 5);
    await iob.storage.states.delState(id);
    let status = 200;
    const deleted = Date.now();
    while (status === 200 && Date.now() - deleted < 1000) {
        status = (await iob.request(`/v1/state/${id}/plain`)).status;
    }
    t.equal(status, 404);
});

t.test('after the storage connection drops and returns, no stale value is served', async t => {
    await writeElsewhere(500);
    await sleep(200);
    t.equal(await readVal(), 500, 'cached');
    // the servers go away; a value changes while nobody can be notified; the servers return
    const bounce = iob.storage.bounce(1000);
    await sleep(300);
    await bounce;
    await writeElsewhere(501);
    const back = Date.now();
    let seen: unknown;
    do {
        const res = await iob.request(`/v1/state/${ID}`);
        seen = res.status === 200 ? res.json.val : undefined;
        if (seen !== undefined) {
            t.not(seen, 500, 'never the value from before the outage');
        }
    } while (seen !== 501 && Date.now() - back < 5000);
    t.equal(seen, 501);
});
