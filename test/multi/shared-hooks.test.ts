/*
 * URL hooks on two instances of one database (both in this process, js-controller's `alive` states
 * set by the test), tried as a limited user would: a hook registered through one instance is listed
 * and deleted through the other, the per-user limit counts hooks made on both, and another user can
 * neither list nor delete it on either.
 */
import t from 'tap';
import { createState, createUser } from '../support/iobroker';
import { startHookReceiver, type HookReceiver } from '../support/hook-receiver';
import { startInProcess, type InProcessApp, type InProcessHost } from '../support/in-process';
import { sharingInstance } from '../support/peers';
import { basic } from '../support/raw-request';

const ADMIN = basic('admin', 'iobroker');
const LIMITED = basic('limited', 'pw');
const ID = '0_userdata.0.shared.hooked';

let host: InProcessHost;
let zero: InProcessApp;
let one: InProcessApp;
let receiver: HookReceiver;
t.before(async () => {
    receiver = await startHookReceiver();
    host = await startInProcess();
    await createState(host.storage, ID, { type: 'number' }, 0);
    await createUser(host.storage, 'limited', { state: { read: true, write: true }, object: { read: true } }, 'pw');
    // js-controller keeps these true (with a TTL) while the instances' processes live
    await sharingInstance(host.storage, 0);
    await sharingInstance(host.storage, 1);
    const limits = { hooksPerUser: 2, checkInterval: 0 };
    zero = await host.app({ auth: true, ...limits });
    one = await host.app({ auth: true, ...limits }, 'rest-api.1');
});
t.teardown(async () => {
    await zero?.close();
    await one?.close();
    await host?.stop();
    receiver?.close();
});

const subscribe = (app: InProcessApp, url: string, headers = ADMIN) => app.request(`/v1/state/${ID}/subscribe`, { method: 'POST', headers, body: { url } });
const list = (app: InProcessApp, url: string, headers = ADMIN) => app.request(`/v1/states/subscribe?url=${encodeURIComponent(url)}`, { headers });

t.test('registered on one instance, listed and deleted on the other, by its user only', async t => {
    const url = `${receiver.url}/shared`;
    t.equal((await subscribe(zero, url)).status, 200);
    for (const [name, app] of [['rest-api.0', zero], ['rest-api.1', one]] as const) {
        t.same((await list(app, url)).json, { states: [ID] }, `${name} lists it`);
        t.equal((await list(app, url, LIMITED)).status, 404, `another user does not see it on ${name}`);
        t.equal((await app.request(`/v1/state/${ID}/subscribe`, { method: 'DELETE', headers: LIMITED, body: { url } })).status, 200);
        t.same((await list(app, url)).json, { states: [ID] }, `another user's delete on ${name} left it in place`);
    }
    t.equal((await one.request(`/v1/state/${ID}/subscribe`, { method: 'DELETE', headers: ADMIN, body: { url } })).status, 200);
    t.equal((await list(zero, url)).status, 404, 'deleted on rest-api.1, gone on rest-api.0');
    t.equal((await list(one, url)).status, 404);
});

t.test('the per-user limit counts the hooks made on both instances', async t => {
    t.equal((await subscribe(zero, `${receiver.url}/l1`, LIMITED)).status, 200);
    t.equal((await subscribe(one, `${receiver.url}/l2`, LIMITED)).status, 200);
    t.equal((await subscribe(zero, `${receiver.url}/l3`, LIMITED)).status, 429, 'a third on rest-api.0');
    t.equal((await subscribe(one, `${receiver.url}/l3`, LIMITED)).status, 429, 'a third on rest-api.1');
    t.equal((await subscribe(one, `${receiver.url}/l1`, LIMITED)).status, 200, 'the one made on rest-api.0 is no new hook on rest-api.1');
});
