/*
 * API tokens on several instances sharing one database: a token issued by rest-api.0 is accepted by
 * rest-api.1 with the same scope, and a revoke on either side is refused on the other at once. Both
 * instances run in this process on the test's own real storage (test/support/in-process.ts); the
 * Redis variant runs one adapter process on a redis-server and restarts it.
 */
import t from 'tap';
import { createState, startIobroker } from '../support/iobroker';
import { startInProcess, type InProcessApp, type InProcessHost } from '../support/in-process';
import { basic } from '../support/raw-request';
import { hasRedis, startRedis } from '../support/redis';

const ADMIN = basic('admin', 'iobroker');
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

let host: InProcessHost;
let zero: InProcessApp;
let one: InProcessApp;
t.before(async () => {
    host = await startInProcess();
    await createState(host.storage, '0_userdata.0.shared.in', { type: 'number' }, 1);
    await createState(host.storage, '0_userdata.0.other', { type: 'number' }, 2);
    zero = await host.app({ auth: true });
    one = await host.app({ auth: true }, 'rest-api.1');
});
t.teardown(async () => {
    await zero?.close();
    await one?.close();
    await host?.stop();
});

t.test('issued by one instance, honoured by another with the same scope; a revoke reaches both at once', async t => {
    const created = await zero.request('/v1/tokens', { method: 'POST', headers: ADMIN, body: { name: 'shared', scope: { read: ['0_userdata.0.shared.*'] } } });
    t.equal(created.status, 201);
    const { token, id } = created.json;
    t.match(token, /^restapi_0_/, 'the token names the instance that keeps it');
    let res = await one.request('/v1/state/0_userdata.0.shared.in', { headers: bearer(token) });
    t.same([res.status, res.json.val], [200, 1], 'accepted by rest-api.1');
    res = await one.request('/v1/state/0_userdata.0.other', { headers: bearer(token) });
    t.equal(res.status, 403, 'with its scope');
    res = await one.request('/v1/tokens', { headers: ADMIN });
    t.same(res.json, [], 'managed where issued: rest-api.1 lists its own tokens only');
    res = await one.request(`/v1/tokens/${id}`, { method: 'DELETE', headers: ADMIN });
    t.equal(res.status, 404, 'and revokes its own only');

    res = await zero.request(`/v1/tokens/${id}`, { method: 'DELETE', headers: ADMIN });
    t.equal(res.status, 204);
    res = await one.request('/v1/state/0_userdata.0.shared.in', { headers: bearer(token) });
    t.equal(res.status, 401, 'the other instance refuses it on the next request');
    res = await zero.request('/v1/state/0_userdata.0.shared.in', { headers: bearer(token) });
    t.equal(res.status, 401);
});

t.test('on Redis: stored in the database, kept across a restart', { skip: !hasRedis() && !process.env.CI ? 'redis-server is not installed (apt-get install redis-server); CI installs it' : false }, async t => {
    const redis = await startRedis();
    const iob = await startIobroker({ redisPort: redis.port, native: { auth: true } });
    try {
        await iob.createState('0_userdata.0.r', { type: 'number' }, 5);
        const created = await iob.request('/v1/tokens', { method: 'POST', headers: ADMIN, body: { name: 'redis', scope: { read: ['0_userdata.0.r'] } } });
        t.equal(created.status, 201);
        t.ok(await iob.storage.objects.getObjectAsync(`rest-api.0.tokens.${created.json.id}`), 'the hash object is in Redis');
        await iob.restart();
        const res = await iob.request('/v1/state/0_userdata.0.r', { headers: bearer(created.json.token) });
        t.same([res.status, res.json.val], [200, 5], 'accepted after a restart');
    } finally {
        await iob.stop();
        await redis.close();
    }
});
