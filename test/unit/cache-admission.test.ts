/*
 * The read cache's admission (pure logic, with a port that only counts): a first miss costs one read
 * and nothing else, a second miss admits the id, and random reads over far more ids than fit never
 * turn into a subscription per request.
 */
import t from 'tap';
import { ChangeFeed } from '../../src/storage/change-feed';
import { CoherentCache } from '../../src/storage/cache/coherent-cache';

function counted(options: { watchAll?: boolean; maxEntries?: number } = {}) {
    const calls = { subscribe: 0, unsubscribe: 0, read: 0, barrier: 0 };
    const port = {
        subscribeForeignStatesAsync: async () => void calls.subscribe++,
        unsubscribeForeignStatesAsync: async () => void calls.unsubscribe++,
        subscribeForeignObjectsAsync: async () => void calls.subscribe++,
        unsubscribeForeignObjectsAsync: async () => void calls.unsubscribe++,
    };
    const feed = new ChangeFeed(port);
    const cache = new CoherentCache<{ val: string }>({
        ...options,
        kind: 'state',
        feed,
        read: async id => {
            calls.read++;
            return { val: id };
        },
        barrier: async () => void calls.barrier++,
        connected: () => true,
    });
    return { calls, cache, feed };
}

/** A port whose subscriptions succeed and count nothing. */
const quietPort = () => ({
    subscribeForeignStatesAsync: async () => undefined,
    unsubscribeForeignStatesAsync: async () => undefined,
    subscribeForeignObjectsAsync: async () => undefined,
    unsubscribeForeignObjectsAsync: async () => undefined,
});

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

t.test('watching every id: one subscription for all entries, none per fill or eviction', async t => {
    const { calls, cache, feed } = counted({ watchAll: true, maxEntries: 20 });
    for (let i = 0; i < 20; i++) {
        await cache.get(`o.${i}`);
        await cache.get(`o.${i}`);
    }
    await settle();
    t.equal(cache.size, 20, 'the second miss admits');
    // asked for more often than what they evict: admitted, the oldest go
    for (let i = 20; i < 30; i++) {
        for (let n = 0; n < 5; n++) {
            await cache.get(`o.${i}`);
        }
    }
    await settle();
    t.equal(cache.size, 20, 'bounded by maxEntries');
    // reads while its fill was under way went to the DB: one more read settles it again
    await cache.get('o.25');
    await settle();
    t.not(cache.peek('o.25'), undefined, 'a newer hot id is served from memory');
    t.equal(calls.subscribe, 1, 'one subscription, to everything');
    t.equal(calls.unsubscribe, 0, 'evictions release nothing at js-controller');
    t.equal(feed.count('state'), 1);
    feed.emit('state', 'o.25', { val: 'changed' } as never);
    t.same(cache.peek('o.25'), { val: 'changed' }, 'a notification for a cached id updates it');
    feed.emit('state', 'o.not-cached', { val: 'x' } as never);
    t.equal(cache.peek('o.not-cached'), undefined, 'one for an id not cached adds nothing');
    cache.clear();
    await cache.get('o.25');
    await cache.get('o.25');
    await settle();
    t.equal(calls.subscribe, 1, 'after a clear the subscription is still there and reused');
    t.same(cache.peek('o.25'), { val: 'o.25' }, 'refilled from the DB');
});

t.test('reads while an entry is being settled wait for it: no request sees a value a later one goes back from', async t => {
    let stored = 'old';
    let barrier: { resolve(): void; reject(err: Error): void } | null = null;
    let slow = false;
    const feed = new ChangeFeed(quietPort());
    let reads = 0;
    const cache = new CoherentCache<{ val: string }>({
        kind: 'object',
        feed,
        read: async () => (reads++, { val: stored }),
        // the fill's barrier was asked before the change below was published: it does not wait for its notification
        barrier: () => (slow ? new Promise<void>((resolve, reject) => (barrier = { resolve, reject })) : Promise.resolve()),
        connected: () => true,
        watchAll: true,
    });
    await cache.get('x');
    slow = true;
    await cache.get('x');
    await settle();
    t.ok(barrier, 'the fill waits for its barrier');
    stored = 'new';
    const readsBefore = reads;
    let answered: unknown;
    const pending = cache.get('x').then(value => (answered = value));
    await settle();
    t.equal(answered, undefined, 'a read meanwhile waits for the entry');
    t.equal(reads, readsBefore, 'and does not read past it');
    slow = false;
    barrier!.resolve();
    await pending;
    t.same(answered, { val: 'old' }, 'it gets the settled value, as every later read until the notification');
    t.same(cache.peek('x'), { val: 'old' });
    feed.emit('object', 'x', { val: 'new' } as never);
    t.same(cache.peek('x'), { val: 'new' }, 'the notification brings the new value');

    // a fill whose barrier fails is dropped, and its waiting reads go to the DB
    cache.clear();
    await cache.get('y');
    slow = true;
    await cache.get('y');
    await settle();
    const waiting = cache.get('y');
    barrier!.reject(new Error('connection lost'));
    t.same(await waiting, { val: 'new' }, 'read from the DB after the entry was dropped');
    slow = false;
});

t.test('bounded in bytes too: large values push the oldest entries out', async t => {
    const feed = new ChangeFeed(quietPort());
    // each value is about 1,000 characters as JSON: 10 fit into 10,000
    const cache = new CoherentCache<{ val: string }>({ kind: 'object', feed, read: async id => ({ val: id.padEnd(990, '.') }), barrier: async () => undefined, connected: () => true, watchAll: true, maxBytes: 10_000 });
    for (let i = 0; i < 30; i++) {
        await cache.get(`big.${i}`);
        await cache.get(`big.${i}`);
        await settle();
    }
    t.ok(cache.size <= 10, `${cache.size} entries of about 1,000 characters within 10,000`);
    t.ok(cache.size >= 8, 'and not fewer than fit');
    t.not(cache.peek('big.29'), undefined, 'the newest stay');
    t.equal(cache.peek('big.0'), undefined, 'the oldest left');
    const before = cache.size;
    feed.emit('object', 'big.29', { val: 'x'.repeat(20_000) } as never);
    t.equal(cache.peek('big.29'), undefined, 'a value over a quarter of the limit is not kept');
    t.equal(cache.size, before - 1, 'and pushes nothing else out');
});

t.test('an entry changed more than 8 times since it was last served leaves and releases its subscription', async t => {
    const { calls, cache, feed } = counted();
    const admit = async (id: string) => {
        await cache.get(id);
        await cache.get(id);
        await settle();
    };
    await admit('written.often');
    await admit('read.between');
    t.equal(feed.count('state'), 2, 'both cached, one subscription each');
    for (let i = 1; i <= 8; i++) {
        feed.emit('state', 'written.often', { val: `w${i}` } as never);
    }
    t.same(cache.peek('written.often'), { val: 'w8' }, 'eight changes: still cached, with the latest value');
    for (let i = 1; i <= 9; i++) {
        feed.emit('state', 'written.often', { val: `again${i}` } as never);
    }
    t.equal(cache.peek('written.often'), undefined, 'nine more without a read in between: dropped');
    await settle();
    t.equal(calls.unsubscribe, 1, 'its subscription released');
    t.equal(feed.count('state'), 1);

    for (let round = 0; round < 5; round++) {
        for (let i = 0; i < 8; i++) {
            feed.emit('state', 'read.between', { val: `r${round}.${i}` } as never);
        }
        t.same(cache.peek('read.between'), { val: `r${round}.7` }, `round ${round}: served from memory`);
    }
    t.equal(calls.unsubscribe, 1, 'an entry read between its changes stays, however many it gets');

    const subscribed = calls.subscribe;
    for (let i = 0; i < 8; i++) {
        await cache.get('written.often');
    }
    await settle();
    t.equal(calls.subscribe, subscribed, 'a dropped id does not come straight back: eight misses fill nothing');
    await cache.get('written.often');
    await settle();
    t.equal(calls.subscribe, subscribed + 1, 'the ninth admits it again');
    t.same(cache.peek('written.often'), { val: 'written.often' }, 'read fresh');
});

t.test('reading twice after every nine changes does not make an id subscribe and unsubscribe each time', async t => {
    const { calls, cache, feed } = counted();
    for (let round = 0; round < 5; round++) {
        await cache.get('churn.x');
        await cache.get('churn.x');
        await settle();
        for (let i = 0; i < 9; i++) {
            feed.emit('state', 'churn.x', { val: `c${round}.${i}` } as never);
        }
    }
    await settle();
    t.equal(calls.subscribe, 1, 'one fill in five rounds');
    t.equal(calls.unsubscribe, 1);
});

t.test('watching every id: changes never drop an entry (it holds no subscription of its own)', async t => {
    const { calls, cache, feed } = counted({ watchAll: true });
    await cache.get('o.x');
    await cache.get('o.x');
    await settle();
    for (let i = 0; i < 20; i++) {
        feed.emit('state', 'o.x', { val: `v${i}` } as never);
    }
    t.same(cache.peek('o.x'), { val: 'v19' }, 'still cached with the latest value');
    t.equal(calls.unsubscribe, 0);
});

t.test('a read before the rights check counts nothing: only the ask counted after it keeps an entry', async t => {
    const { calls, cache, feed } = counted();
    await cache.get('early.x');
    await cache.get('early.x');
    await settle();
    t.equal(calls.subscribe, 1, 'held');
    for (let i = 0; i < 9; i++) {
        feed.emit('state', 'early.x', { val: `e${i}` } as never);
        // a caller whose rights are refused afterwards: its early read is served, but nothing counts
        const early = await cache.get('early.x', { admit: false });
        if (i < 8) {
            t.same(early, { val: `e${i}` }, 'served from memory');
        }
    }
    await settle();
    t.equal(calls.unsubscribe, 1, 'refused early reads did not keep it: dropped after nine unread changes');
    t.equal(calls.subscribe, 1, 'and the early read after the drop did not fill it again');

    await cache.get('kept.x');
    await cache.get('kept.x');
    await settle();
    for (let i = 0; i < 9; i++) {
        feed.emit('state', 'kept.x', { val: `k${i}` } as never);
        await cache.get('kept.x', { admit: false });
        // the caller turned out to be allowed: its ask counts as a read
        cache.admitAsked('kept.x');
    }
    await settle();
    t.equal(calls.unsubscribe, 1, 'allowed early reads keep it');
    t.same(cache.peek('kept.x'), { val: 'k8' });
});

t.test('an allowed early read of a written entry (read from the DB) does not count as served from memory', async t => {
    const { calls, cache, feed } = counted();
    await cache.get('written.x');
    await cache.get('written.x');
    await settle();
    for (let i = 0; i < 9; i++) {
        // this adapter wrote it: the next read goes to the DB until the change is seen
        cache.written('written.x');
        const early = cache.get('written.x', { admit: false });
        cache.admitAsked('written.x');
        await early;
        feed.emit('state', 'written.x', { val: `w${i}` } as never);
    }
    await settle();
    t.equal(calls.unsubscribe, 1, 'never served from memory between nine changes: dropped, as a plain read of it would be');
});
