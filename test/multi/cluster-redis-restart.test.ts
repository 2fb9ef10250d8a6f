/*
 * Two rest-api processes on one Redis that restarts, tried as a user whose Redis is upgraded or killed
 * for memory: a restarted Redis comes back without keyspace notifications (js-controller switches them
 * on at its first connect only), so an instance that dies afterwards is announced to no one. The other
 * instance must notice it from what Redis holds: it delivers the dead (or hung) one's hooks within 45 s and stops
 * waiting for its copies of polling sessions. Each outage is in each instance's log once, with its length.
 */
import t from 'tap';
import { createState } from '../support/iobroker';
import { adminCall, allAlive, directUrl, startCluster, type Cluster } from '../support/cluster';
import { startHookReceiver, type HookReceiver } from '../support/hook-receiver';
import { hasRedis } from '../support/redis';
import { sleep, until } from '../support/until';

const ID = '0_userdata.0.restart.hooked';

if (!hasRedis() && !process.env.CI) {
    t.test('Redis restarts under two instances', { skip: 'redis-server is not installed (apt-get install redis-server); CI installs it' }, async () => undefined);
} else {
    let cluster: Cluster;
    let receiver: HookReceiver;
    const bothAlive = () => allAlive(cluster);
    t.before(async () => {
        receiver = await startHookReceiver();
        cluster = await startCluster(2, { auth: true, checkInterval: 0 });
        await createState(cluster.storage, ID, { type: 'number' }, 0);
        await until(bothAlive, 20_000);
        await sleep(500);
    });
    t.teardown(async () => {
        await cluster?.stop();
        receiver?.close();
    });

    const direct = (n: number) => directUrl(cluster, n);
    const call = adminCall;
    const lines = (n: number, pattern: RegExp) => cluster.nodes[n].logs().split('\n').filter(line => pattern.test(line));

    t.test('after a 3 s outage: each instance logs it once with its length, and info.connection is true again', async t => {
        await cluster.store.bounce(3000);
        for (const n of [0, 1]) {
            t.ok(await until(async () => (await call(direct(n), `/v1/state/${ID}`)).status === 200, 20_000), `rest-api.${n} answers again`);
        }
        for (const n of [0, 1]) {
            t.ok(await until(() => lines(n, /is back after/).length > 0, 20_000), `rest-api.${n} says the link is back`);
            t.equal(lines(n, /Lost the connection to the ioBroker database/).length, 1, `rest-api.${n}: one warning for the outage`);
            const back = lines(n, /is back after/);
            t.equal(back.length, 1, `rest-api.${n}: one line when it is back`);
            const seconds = Number(/back after ([\d.]+) s/.exec(back[0])?.[1]);
            t.ok(seconds >= 2 && seconds < 30, `rest-api.${n}: the outage's length (${seconds} s)`);
            t.ok(
                await until(async () => (await cluster.storage.states.getStateAsync(`rest-api.${n}.info.connection`))?.val === true, 10_000),
                `rest-api.${n}: info.connection true`,
            );
        }
        t.ok(await until(bothAlive, 30_000), 'both alive again');
    });

    t.test('after the restart, a killed instance is noticed: its hook is delivered by the other within 45 s', async t => {
        const url = `${receiver.url}/after-restart`;
        // registered on rest-api.1: it delivers while alive
        t.equal((await call(direct(1), `/v1/state/${ID}/subscribe`, { method: 'POST', body: { url } })).status, 200);
        t.equal((await call(direct(0), `/v1/state/${ID}`, { method: 'PATCH', body: { val: 1 } })).status, 200);
        t.ok(await until(() => receiver.received.some(r => r.url.endsWith('/after-restart') && r.body.includes('"val":1')), 10_000), 'delivered while both live');

        await cluster.nodes[1].kill();
        const killed = Date.now();
        for (let val = 2; val <= 6; val++) {
            t.equal((await call(direct(0), `/v1/state/${ID}`, { method: 'PATCH', body: { val } })).status, 200);
        }
        const delivered = () => new Set(receiver.received.filter(r => r.url.endsWith('/after-restart') && r.body.includes('"state"')).map(r => JSON.parse(r.body).state.val as number));
        t.ok(await until(() => [2, 3, 4, 5, 6].every(v => delivered().has(v)), 45_000), '5/5 delivered by rest-api.0 within 45 s');
        t.comment(`taken over after ${Math.round((Date.now() - killed) / 1000)} s`);

        // nobody waits for the dead instance's copy of a polling session any more
        const started = Date.now();
        t.equal((await call(direct(0), `/v1/state/${ID}/subscribe?sid=after-restart&method=polling`)).status, 200);
        const took = Date.now() - started;
        t.ok(took < 1000, `a polling subscribe takes its usual time (${took} ms)`);
    });

    t.test('an instance that hangs (SIGSTOP) stops counting too: its hook is delivered by the other within 45 s', async t => {
        await cluster.nodes[1].start();
        t.ok(await until(bothAlive, 30_000), 'rest-api.1 is back');
        const url = `${receiver.url}/hung`;
        t.equal((await call(direct(1), `/v1/state/${ID}/subscribe`, { method: 'POST', body: { url } })).status, 200);
        const delivered = () => new Set(receiver.received.filter(r => r.url.endsWith('/hung') && r.body.includes('"state"')).map(r => JSON.parse(r.body).state.val as number));
        t.equal((await call(direct(0), `/v1/state/${ID}`, { method: 'PATCH', body: { val: 10 } })).status, 200);
        t.ok(await until(() => delivered().has(10), 10_000), 'delivered while both live');

        const pid = cluster.nodes[1].pid!;
        process.kill(pid, 'SIGSTOP');
        t.teardown(() => void process.kill(pid, 'SIGCONT'));
        const stopped = Date.now();
        for (let val = 11; val <= 15; val++) {
            t.equal((await call(direct(0), `/v1/state/${ID}`, { method: 'PATCH', body: { val } })).status, 200);
        }
        t.ok(await until(() => [11, 12, 13, 14, 15].every(v => delivered().has(v)), 45_000), '5/5 delivered by rest-api.0 within 45 s');
        t.comment(`taken over after ${Math.round((Date.now() - stopped) / 1000)} s`);
    });
}
