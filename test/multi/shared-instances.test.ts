/*
 * Two instances on one database, as behind a round-robin proxy: a write answered by one is what the
 * other reads next, and failed logins count once for both. Both instances run in this process on the
 * test's own real storage; js-controller's `alive` state says that the other one lives.
 */
import t from 'tap';
import { createState, createUser } from '../support/iobroker';
import { startInProcess, type InProcessApp, type InProcessHost } from '../support/in-process';
import { sharingInstance } from '../support/peers';
import { basic } from '../support/raw-request';
import { until } from '../support/until';
import type { BruteForceGuard } from '../../src/auth/brute-force';
import { userKey } from '../../src/auth/brute-force';

const ADMIN = basic('admin', 'iobroker');
const ID = '0_userdata.0.multi.value';

let host: InProcessHost;
let zero: InProcessApp;
let one: InProcessApp;
t.before(async () => {
    host = await startInProcess();
    await createState(host.storage, ID, { type: 'number' }, 0);
    // js-controller keeps this true (with a TTL) while rest-api.1's process lives
    await sharingInstance(host.storage, 1);
    zero = await host.app({ auth: true });
    one = await host.app({ auth: true }, 'rest-api.1');
});
t.teardown(async () => {
    await zero?.close();
    await one?.close();
    await host?.stop();
});

t.test('a read on one instance sees the write another instance answered, every round', async t => {
    // hot in rest-api.0's cache first, where a stale value would come from
    for (let i = 0; i < 3; i++) {
        t.equal((await zero.request(`/v1/state/${ID}`, { headers: ADMIN })).status, 200);
    }
    const stale: number[] = [];
    for (let val = 1; val <= 100; val++) {
        const written = await one.request(`/v1/state/${ID}`, { method: 'PATCH', headers: ADMIN, body: { val } });
        t.equal(written.status, 200);
        const [state, plain] = await Promise.all([zero.request(`/v1/state/${ID}`, { headers: ADMIN }), zero.request(`/v1/state/${ID}/plain`, { headers: ADMIN })]);
        if (state.json.val !== val || Number(plain.text) !== val) {
            stale.push(val);
        }
    }
    t.same(stale, [], 'no round read an older value');
});

t.test('a pattern listing on one instance also shows the other instance answered write', async t => {
    const pattern = '0_userdata.0.multi.*';
    for (let i = 0; i < 3; i++) {
        await zero.request(`/v1/states?filter=${pattern}`, { headers: ADMIN });
    }
    const stale: number[] = [];
    for (let val = 1001; val <= 1050; val++) {
        await one.request(`/v1/state/${ID}`, { method: 'PATCH', headers: ADMIN, body: { val } });
        const listing = await zero.request(`/v1/states?filter=${pattern}`, { headers: ADMIN });
        if (listing.json[ID]?.val !== val) {
            stale.push(val);
        }
    }
    t.same(stale, []);
});

t.test('wrong passwords alternating between the instances lock the name on both after five', async t => {
    await createUser(host.storage, 'target', { state: { read: true } }, 'right');
    const address = '192.0.2.77';
    const guardOf = (app: InProcessApp) => (app.services.auth.credentials as unknown as { guard: BruteForceGuard }).guard;
    const locked = (app: InProcessApp) => {
        try {
            guardOf(app).assertAllowed(address, userKey('target'));
            return false;
        } catch {
            return true;
        }
    };
    for (let attempt = 0; attempt < 5; attempt++) {
        const app = attempt % 2 ? one : zero;
        const res = await app.request(`/v1/state/${ID}`, { headers: basic('target', `wrong${attempt}`), remoteAddress: address });
        t.equal(res.status, 401, `attempt ${attempt + 1}`);
    }
    // each instance saw two or three of the five itself: only counting the other's makes five
    t.ok(await until(() => locked(zero) && locked(one)), 'both instances hold the lock');
    for (const app of [zero, one]) {
        const res = await app.request(`/v1/state/${ID}`, { headers: basic('target', 'right'), remoteAddress: address });
        t.equal(res.status, 429, 'even the right password waits');
        t.ok(Number(res.headers['retry-after']) > 0);
    }
});

t.test('a user cannot read or forge the shared login notes', async t => {
    await createUser(host.storage, 'reader', { state: { read: true, write: true }, object: { read: true } }, 'pw');
    const auth = basic('reader', 'pw');
    const read = await zero.request('/v1/state/rest-api.0.guard', { headers: auth });
    t.equal(read.status, 403, 'user names and addresses of failed logins are for administrators');
    const forged = await zero.request('/v1/state/rest-api.1.guard', {
        method: 'PATCH',
        headers: auth,
        body: { val: JSON.stringify({ guard: 'password', outcome: 'succeeded', address: '192.0.2.77', user: userKey('target') }) },
    });
    t.ok([403, 404].includes(forged.status), `a forged note is refused (${forged.status})`);
    const still = await zero.request(`/v1/state/${ID}`, { headers: basic('target', 'right'), remoteAddress: '192.0.2.77' });
    t.equal(still.status, 429, 'and unlocks nothing');
});
