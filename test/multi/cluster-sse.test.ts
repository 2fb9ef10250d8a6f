/*
 * An event stream resumed anywhere, as a browser's EventSource reconnects through a load balancer
 * without sticky sessions: two rest-api processes on one Redis behind the cluster tests' round-robin
 * proxy. A reconnect with Last-Event-ID to the other instance (one with no channel for the patterns,
 * and one already streaming them), or to the same instance after it was killed and started again,
 * replays exactly the events missed, from the log the first instance kept in the states database.
 */
import t, { type Test } from 'tap';
import { createState } from '../support/iobroker';
import { startCluster, type Cluster } from '../support/cluster';
import { hasRedis } from '../support/redis';
import { openSse, type SseClient } from '../support/sse-client';
import { sleep, until } from '../support/until';

const ID = '0_userdata.0.cluster.sse';

if (!hasRedis() && !process.env.CI) {
    t.test(
        'event streams resumed on any instance',
        { skip: 'redis-server is not installed (apt-get install redis-server); CI installs it' },
        async () => undefined,
    );
} else {
    let cluster: Cluster;
    t.before(async () => {
        cluster = await startCluster(2);
        await createState(cluster.storage, ID, { type: 'number' }, 0);
        await until(async () => {
            const states = await Promise.all(
                [0, 1].map(n => cluster.storage.states.getStateAsync(`system.adapter.rest-api.${n}.alive`)),
            );
            return states.every((s: ioBroker.State | null) => s?.val === true);
        }, 20_000);
    });
    t.teardown(() => cluster?.stop());

    const write = (val: number) =>
        cluster.storage.states.setStateAsync(ID, { val, ack: true, from: 'system.adapter.test.0' });
    const direct = (n: number) => `http://127.0.0.1:${cluster.nodes[n].port}`;

    /** Opens a stream on node `n`, sees one event, leaves; five writes follow while it is away. */
    async function missFive(n: number, first: number): Promise<string> {
        const sse = await openSse(`${direct(n)}/v1/events?pattern=${ID}`);
        await write(first);
        const seen = await sse.nextEvent();
        sse.close();
        for (let val = first + 1; val <= first + 5; val++) {
            await write(val);
        }
        // the abandoned channel logs its events at most every half second: the last write lands within it
        await sleep(800);
        return seen.id!;
    }

    /** The next five values of a resumed stream; fails on an overflow. */
    async function five(t: Test, sse: SseClient): Promise<number[]> {
        const got: number[] = [];
        while (got.length < 5) {
            const event = await sse.nextEvent(10_000);
            t.not(event.event, 'overflow', 'no overflow');
            got.push(JSON.parse(event.data!).state.val);
        }
        return got;
    }

    t.test('to the other instance, cold (no channel there) and warm (already streaming the pattern)', async t => {
        const cold = await openSse(`${direct(1)}/v1/events?pattern=${ID}`, { 'Last-Event-ID': await missFive(0, 10) });
        t.same(await five(t, cold), [11, 12, 13, 14, 15], 'cold: 5 of 5');
        // node 1 now has a channel for the pattern, and keeps it streaming
        const lastId = await missFive(0, 20);
        const warm = await openSse(`${direct(1)}/v1/events?pattern=${ID}`, { 'Last-Event-ID': lastId });
        t.same(await five(t, warm), [21, 22, 23, 24, 25], 'warm: 5 of 5');
        cold.close();
        warm.close();
    });

    t.test('through the proxy: whichever instance takes the reconnect replays the missed events', async t => {
        const lastId = await missFive(0, 30);
        for (const round of [1, 2]) {
            const resumed = await openSse(`${cluster.baseUrl}/v1/events?pattern=${ID}`, { 'Last-Event-ID': lastId });
            t.same(await five(t, resumed), [31, 32, 33, 34, 35], `reconnect ${round} through the proxy: 5 of 5`);
            resumed.close();
        }
    });

    t.test('to the same instance after it was killed and started again', async t => {
        const lastId = await missFive(0, 40);
        await cluster.nodes[0].kill();
        await cluster.nodes[0].start();
        const resumed = await openSse(`${direct(0)}/v1/events?pattern=${ID}`, { 'Last-Event-ID': lastId });
        t.same(await five(t, resumed), [41, 42, 43, 44, 45], 'after the restart: 5 of 5');
        await write(46);
        t.match(JSON.parse((await resumed.nextEvent(10_000)).data!), { state: { val: 46 } }, 'then live');
        resumed.close();
    });
}
