/*
 * The state read made beside the object read (before the caller's rights are known) must not make
 * the cache hold and watch an id the caller may not read: on real storage, a user who may see an
 * object but not its state asks for it again and again; only a reader with the right fills the cache.
 */
import t from 'tap';
import { createState, createUser } from '../support/iobroker';
import { startInProcess, type InProcessApp, type InProcessHost } from '../support/in-process';
import { basic } from '../support/raw-request';

const ADMIN = basic('admin', 'iobroker');
const VIEWER = basic('viewer', 'v-pass');
const ID = '0_userdata.0.meter_private';
// the object is everyone's to read, its state only the owner's
const STATE_PRIVATE = { owner: 'system.user.admin', ownerGroup: 'system.group.administrator', object: 0x644, state: 0x600 };

let host: InProcessHost;
let app: InProcessApp;

t.before(async () => {
    host = await startInProcess();
    await createUser(host.storage, 'viewer', { object: { read: true, list: true }, state: { read: true, list: true } }, 'v-pass');
    await createState(host.storage, ID, { type: 'number' }, 7);
    await host.storage.objects.extendObjectAsync(ID, { acl: STATE_PRIVATE });
    app = await host.app({ auth: true, checkInterval: 0 });
});
t.teardown(async () => {
    await app?.close();
    await host?.stop();
});

const settle = () => new Promise(resolve => setTimeout(resolve, 100));

t.test('a caller refused the state fills no cache entry, however often it asks', async t => {
    const { states } = app.services.data;
    const before = states.size;
    for (let i = 0; i < 6; i++) {
        const answer = await app.request(`/v1/state/${ID}`, { headers: VIEWER });
        t.equal(answer.status, 403, `ask ${i + 1}: refused`);
        await settle();
    }
    t.equal(states.size, before, 'no entry made');
    t.equal(states.peek(ID), undefined, 'the state is not held');
});

t.test('a reader with the right still fills it on the second read, and the third comes from memory', async t => {
    const { states } = app.services.data;
    for (let i = 0; i < 2; i++) {
        const answer = await app.request(`/v1/state/${ID}`, { headers: ADMIN });
        t.equal(answer.status, 200);
        t.equal(answer.json?.val, 7);
        await settle();
    }
    t.same(states.peek(ID)?.val, 7, 'held after two reads');
    const refused = await app.request(`/v1/state/${ID}`, { headers: VIEWER });
    t.equal(refused.status, 403, 'a held state is still refused to the viewer');
});
