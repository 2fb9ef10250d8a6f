/*
 * URL hooks with two rest-api processes on one Redis behind a round-robin proxy, tried as an integrator
 * with a load balancer would: a hook is one hook on every instance (listed and deleted from any; the
 * limited-user cases are in shared-hooks.test.ts), each change reaches the receiver once, and when the
 * instance delivering it dies the other one delivers every change it missed, in order, with the same
 * `webhook-id` for anything sent twice.
 */
import t from 'tap';
import { createState } from '../support/iobroker';
import { adminCall, allAlive, directUrl, startCluster, type Cluster } from '../support/cluster';
import { startHookReceiver, type HookReceiver } from '../support/hook-receiver';
import { hasRedis } from '../support/redis';
import { sleep, until } from '../support/until';

const ID = '0_userdata.0.cluster.hooked';

if (!hasRedis() && !process.env.CI) {
    t.test('URL hooks on two instances', { skip: 'redis-server is not installed (apt-get install redis-server); CI installs it' }, async () => undefined);
} else {
    let cluster: Cluster;
    let receiver: HookReceiver;
    t.before(async () => {
        receiver = await startHookReceiver();
        cluster = await startCluster(2, { auth: true, checkInterval: 0 });
        await createState(cluster.storage, ID, { type: 'number' }, 0);
        await until(() => allAlive(cluster), 20_000);
        // each instance has heard the other's alive state
        await sleep(500);
    });
    t.teardown(async () => {
        await cluster?.stop();
        receiver?.close();
    });

    const call = adminCall;
    const direct = (n: number) => directUrl(cluster, n);
    const listing = (url: string) => `/v1/states/subscribe?url=${encodeURIComponent(url)}`;
    const events = (path: string) =>
        receiver.received
            .filter(r => r.url.endsWith(path) && r.body.includes('"state"'))
            .map(r => ({ id: String(r.headers['webhook-id']), body: r.body, val: JSON.parse(r.body).state.val as number }));

    t.test('a hook registered on one instance is listed and deleted on the other', async t => {
        const url = `${receiver.url}/listed`;
        t.equal((await call(direct(0), `/v1/state/${ID}/subscribe`, { method: 'POST', body: { url } })).status, 200);
        t.same((await call(direct(1), listing(url))).json, { states: [ID] }, 'rest-api.1 lists it');
        t.equal((await call(direct(1), `/v1/state/${ID}/subscribe`, { method: 'DELETE', body: { url } })).status, 200);
        t.equal((await call(direct(0), listing(url))).status, 404, 'deleted on rest-api.1, gone on rest-api.0');
    });

    t.test('a device created through one instance shows on the other without a restart; its hook gets device events', async t => {
        const lamp = '0_userdata.0.cluster_lamp';
        t.equal((await call(direct(1), '/v1/devices')).status, 200, 'rest-api.1 has detected its devices');
        t.equal((await call(direct(1), `/v1/devices/${lamp}`)).status, 404);
        const created = await call(direct(0), `/v1/object/${lamp}`, { method: 'POST', body: { type: 'channel', common: { name: 'Cluster lamp' }, native: {} } });
        t.equal(created.status, 200);
        const state = { type: 'state', common: { name: 'on', role: 'switch.light', type: 'boolean', read: true, write: true }, native: {} };
        t.equal((await call(direct(0), `/v1/object/${lamp}.on`, { method: 'POST', body: state })).status, 200);
        t.ok(await until(async () => (await call(direct(1), `/v1/devices/${lamp}`)).status === 200, 10_000), 'rest-api.1 finds it');
        t.match((await call(direct(1), `/v1/devices/${lamp}`)).json, { id: lamp, states: { SET: { id: `${lamp}.on` } } });

        const url = `${receiver.url}/device`;
        t.equal((await call(direct(1), `/v1/devices/${lamp}/subscribe`, { method: 'POST', body: { url } })).status, 200);
        await sleep(500);
        t.equal((await call(direct(0), `/v1/state/${lamp}.on`, { method: 'PATCH', body: { val: true } })).status, 200);
        const delivered = () => receiver.received.filter(r => r.url.endsWith('/device') && r.body.includes('"device"'));
        t.ok(await until(() => delivered().length >= 1, 10_000), 'a device event arrives');
        t.match(JSON.parse(delivered()[0].body), { device: lamp, role: 'SET', id: `${lamp}.on`, state: { val: true } });
        await sleep(500);
        t.equal(delivered().length, 1, 'once, from one instance');
        t.equal((await call(direct(0), `/v1/devices/${lamp}/subscribe`, { method: 'DELETE', body: { url } })).status, 200);
    });

    t.test('registered through both instances, 20 writes through the proxy arrive once each; the deliverer killed, 10 more arrive from the other', async t => {
        const url = `${receiver.url}/failover`;
        for (const n of [0, 1]) {
            t.equal((await call(direct(n), `/v1/state/${ID}/subscribe`, { method: 'POST', body: { url } })).status, 200, `subscribed on rest-api.${n}`);
        }
        for (let val = 1; val <= 20; val++) {
            t.equal((await call(cluster.baseUrl, `/v1/state/${ID}`, { method: 'PATCH', body: { val } })).status, 200);
        }
        await until(() => events('/failover').length >= 20, 10_000);
        await sleep(1000);
        const first = events('/failover');
        t.same(
            first.map(e => e.val),
            Array.from({ length: 20 }, (_, i) => i + 1),
            '20/20, in order, none twice',
        );
        t.equal(new Set(first.map(e => e.id)).size, 20, 'no webhook-id twice');

        // rest-api.0 registered it first: it delivers while alive
        await cluster.nodes[0].kill();
        const started = Date.now();
        for (let val = 21; val <= 30; val++) {
            t.equal((await call(cluster.baseUrl, `/v1/state/${ID}`, { method: 'PATCH', body: { val } })).status, 200);
        }
        const after = () => events('/failover').filter(e => e.val > 20);
        t.ok(await until(() => new Set(after().map(e => e.val)).size >= 10, 45_000), 'all 10 delivered within 45 s');
        t.comment(`taken over after ${Math.round((Date.now() - started) / 1000)} s`);
        await sleep(500);
        const all = events('/failover');
        const byId = new Map<string, string>();
        for (const e of all) {
            t.equal(byId.get(e.id) ?? e.body, e.body, 'a webhook-id names one event');
            byId.set(e.id, e.body);
        }
        const firstSeen = [...new Map(all.map(e => [e.id, e.val])).values()];
        t.same(
            firstSeen,
            Array.from({ length: 30 }, (_, i) => i + 1),
            'every change once by its webhook-id, in order',
        );
    });
}
