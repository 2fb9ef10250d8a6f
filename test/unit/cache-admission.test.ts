/*
 * The read cache's admission (pure logic, with a port that only counts): a first miss costs one read
 * and nothing else, a second miss admits the id, and random reads over far more ids than fit never
 * turn into a subscription per request.
 */
import t from 'tap';
import { ChangeFeed } from '../../src/lib/change-feed';
import { CoherentCache } from '../../src/lib/coherent-cache';

function counted() {
    const calls = { subscribe: 0, unsubscribe: 0, read: 0, barrier: 0 };
    const port = {
        subscribeForeignStatesAsync: async () => void calls.subscribe++,
        unsubscribeForeignStatesAsync: async () => void calls.unsubscribe++,
        subscribeForeignObjectsAsync: async () => void calls.subscribe++,
        unsubscribeForeignObjectsAsync: async () => void calls.unsubscribe++,
    };
    const cache = new CoherentCache<{ val: string }>({
        kind: 'state',
        feed: new ChangeFeed(port),
        read: async id => {
            calls.read++;
            return { val: id };
        },
        barrier: async () => void calls.barrier++,
        connected: () => true,
    });
    return { calls, cache };
}

const settle = () => new Promise(resolve => setTimeout(resolve, 20));

t.test('a first miss is one read; the second admits; then reads come from memory', async t => {
    const { calls, cache } = counted();
    t.same(await cache.get('a.b'), { val: 'a.b' });
    await settle();
    t.same(calls, { subscribe: 0, unsubscribe: 0, read: 1, barrier: 0 }, 'first miss: one read, no subscription');
    t.equal(cache.peek('a.b'), undefined, 'not cached yet');
    await cache.get('a.b');
    await settle();
    t.equal(calls.subscribe, 1, 'second miss: admitted and subscribed');
    const reads = calls.read;
    t.same(await cache.get('a.b'), { val: 'a.b' });
    t.equal(calls.read, reads, 'then from memory');
});

t.test('random reads over 50,000 ids: almost no subscriptions, at most one read each', async t => {
    const { calls, cache } = counted();
    let seed = 42;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const requests = 20_000;
    for (let i = 0; i < requests; i++) {
        await cache.get(`s.${Math.floor(random() * 50_000)}`);
    }
    await settle();
    t.ok(calls.subscribe < requests * 0.1, `subscriptions ${calls.subscribe} for ${requests} random reads`);
    t.ok(calls.read <= requests + calls.subscribe, `reads ${calls.read}: one per request, plus one per admitted fill`);
    t.ok(cache.size <= 2000, 'bounded in entries');
});

t.test('a hot set of 1,000 ids is admitted and served from memory', async t => {
    const { calls, cache } = counted();
    for (let round = 0; round < 3; round++) {
        for (let i = 0; i < 1000; i++) {
            await cache.get(`hot.${i}`);
        }
        await settle();
    }
    const reads = calls.read;
    for (let i = 0; i < 1000; i++) {
        t.ok(cache.peek(`hot.${i}`), `hot.${i}`);
    }
    t.equal(calls.read, reads, 'no read for a cached hot id');
});

t.test('random reads over 10,000 ids: once full, the cache stops churning (no subscribe and evict per admission)', async t => {
    const { calls, cache } = counted();
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 30_000; i++) {
        await cache.get(`s.${Math.floor(random() * 10_000)}`);
    }
    await settle();
    const before = { ...calls };
    const requests = 30_000;
    for (let i = 0; i < requests; i++) {
        await cache.get(`s.${Math.floor(random() * 10_000)}`);
    }
    await settle();
    const subscribed = calls.subscribe - before.subscribe;
    const misses = calls.read - before.read - subscribed;
    // a second miss alone would admit about a fifth of the misses here (2,000 of 10,000 ids remembered)
    t.ok(subscribed < misses * 0.05, `${subscribed} subscriptions for ${misses} misses once full`);
    t.ok(misses < requests * 0.9, `${requests - misses} of ${requests} answered from memory`);
});

t.test('a hot set stays cached while random reads over many other ids pass by', async t => {
    const { cache } = counted();
    let seed = 3;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let round = 0; round < 20; round++) {
        for (let i = 0; i < 500; i++) {
            await cache.get(`hot.${i}`);
            await cache.get(`cold.${Math.floor(random() * 50_000)}`);
            await cache.get(`cold.${Math.floor(random() * 50_000)}`);
        }
        await settle();
    }
    let cached = 0;
    for (let i = 0; i < 500; i++) {
        cached += cache.peek(`hot.${i}`) ? 1 : 0;
    }
    t.ok(cached >= 490, `${cached} of 500 hot ids cached`);
});
