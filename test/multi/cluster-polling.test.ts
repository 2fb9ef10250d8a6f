/*
 * A long-polling session on two rest-api processes on one Redis, tried as an integrator with a load
 * balancer without sticky sessions would: polls alternate between the instances, then the instance that
 * answered the last poll is killed and the polls go on through the proxy.
 */
import t from 'tap';
import { createState } from '../support/iobroker';
import { startCluster, type Cluster } from '../support/cluster';
import { hasRedis } from '../support/redis';
import { basic } from '../support/raw-request';
import { sleep, until } from '../support/until';

// a user's rights on shared sessions are tried in shared-polling.test.ts (in one process, cheaper)
const WATCHER = basic('admin', 'iobroker');
const ID = '0_userdata.0.cluster.poll';

if (!hasRedis() && !process.env.CI) {
    t.test('a polling session on two instances', { skip: 'redis-server is not installed (apt-get install redis-server); CI installs it' }, async () => undefined);
} else {
    let cluster: Cluster;
    t.before(async () => {
        cluster = await startCluster(2, { auth: true });
        await createState(cluster.storage, ID, { type: 'number' }, 0);
        const alive = async () => {
            const states = await Promise.all([0, 1].map(n => cluster.storage.states.getStateAsync(`system.adapter.rest-api.${n}.alive`)));
            return states.every((s: ioBroker.State | null) => s?.val === true);
        };
        await until(alive, 20_000);
        // each has heard the other's alive state (the notification follows the write)
        await sleep(500);
    });
    t.teardown(() => cluster?.stop());

    const write = (val: number) => cluster.storage.states.setStateAsync(ID, { val, ack: true, from: 'system.adapter.test.0' });
    const get = async (base: string, path: string) => {
        const res = await fetch(`${base}${path}`, { headers: WATCHER });
        return { status: res.status, text: await res.text() };
    };
    const values = (text: string): unknown[] => (text ? [JSON.parse(text)].flat() : []).map(e => (e.overflow ? 'overflow' : e.state?.val));

    t.test('a device subscribed through one instance is polled on the other', async t => {
        const [a, b] = cluster.nodes.map(n => `http://127.0.0.1:${n.port}`);
        const lamp = '0_userdata.0.cluster_poll_lamp';
        const { states } = cluster.storage;
        const create = (id: string, body: object) =>
            fetch(`${a}/v1/object/${id}`, { method: 'POST', headers: { ...WATCHER, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
        t.equal((await get(b, '/v1/devices')).status, 200, 'rest-api.1 has detected its devices');
        t.equal((await create(lamp, { type: 'channel', common: { name: 'Lamp' }, native: {} })).status, 200);
        const on = { type: 'state', common: { name: 'on', role: 'switch.light', type: 'boolean', read: true, write: true }, native: {} };
        t.equal((await create(`${lamp}.on`, on)).status, 200, 'created through rest-api.0');
        t.ok(await until(async () => (await get(b, `/v1/devices/${lamp}`)).status === 200, 10_000), 'detected on rest-api.1');
        t.ok(await until(async () => (await get(a, `/v1/devices/${lamp}`)).status === 200, 10_000), 'and on rest-api.0');
        const subscribed = await fetch(`${b}/v1/devices/${lamp}/subscribe?sid=dev&method=polling`, { method: 'POST', headers: WATCHER });
        t.equal(subscribed.status, 200);
        const poll = get(a, '/v1/polling?sid=dev&timeout=3000');
        await sleep(100);
        await states.setStateAsync(`${lamp}.on`, { val: true, ack: true, from: 'system.adapter.test.0' });
        const answer = await poll;
        t.match(JSON.parse(answer.text || 'null'), { device: lamp, role: 'SET', id: `${lamp}.on`, state: { val: true } }, 'the copy on rest-api.0 has the device subscription');
    });

    t.test('polls alternating between the instances, then the one that answered last dies', async t => {
        const [a, b] = cluster.nodes.map(n => `http://127.0.0.1:${n.port}`);
        t.equal((await get(a, '/v1/polling?sid=s1&connect&timeout=3000')).text, '_');
        t.equal((await get(b, `/v1/state/${ID}/subscribe?sid=s1&method=polling`)).status, 200);
        const got: unknown[] = [];
        for (let val = 1; val <= 10; val++) {
            const poll = get(val % 2 ? a : b, '/v1/polling?sid=s1&timeout=3000');
            await sleep(50);
            await write(val);
            got.push(...values((await poll).text));
        }
        t.same(got, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 'every write once, each from the poll that waited for it');

        // b answered the last poll: it dies, a holds what b had not handed out
        await cluster.nodes[1].kill();
        for (let val = 11; val <= 15; val++) {
            await write(val);
        }
        const after: unknown[] = [];
        const end = Date.now() + 15_000;
        while (after.filter(v => v !== 'overflow').length < 5 && Date.now() < end) {
            const res = await get(cluster.baseUrl, '/v1/polling?sid=s1&batch=true&timeout=2000');
            t.equal(res.status, 200);
            after.push(...values(res.text));
        }
        const events = after.filter(v => v !== 'overflow');
        t.same(events, [11, 12, 13, 14, 15], 'the writes after the kill, none twice');
        if (after[0] === 'overflow') {
            t.pass('a loss would be reported first');
        }
        t.notOk(after.slice(1).includes('overflow'), 'no overflow in the middle of the events');

        // b comes back: it hears of the session (or reads its record) and answers its share of the polls
        await cluster.nodes[1].start();
        const back: unknown[] = [];
        for (let val = 16; val <= 19; val++) {
            const poll = get(cluster.baseUrl, '/v1/polling?sid=s1&batch=true&timeout=3000');
            await sleep(100);
            await write(val);
            back.push(...values((await poll).text));
        }
        const rest = await get(cluster.baseUrl, '/v1/polling?sid=s1&batch=true&timeout=1000');
        back.push(...values(rest.text));
        t.same(
            back.filter(v => v !== 'overflow'),
            [16, 17, 18, 19],
            'after the restart every write once',
        );
        t.notOk(back.slice(1).includes('overflow'), 'a loss is only ever reported first');
    });
}
