import t from 'tap';
import { HistorySettingsCache, type CustomRow } from '../../src/storage/cache/history-settings';

type Listener = (id: string) => void;

function setUp(options: { usable?: () => boolean; listenFails?: boolean } = {}) {
    const listeners: Listener[] = [];
    let reads = 0;
    let rows: CustomRow[] = [{ id: 'a.0.x', value: { 'history.0': { aliasId: 'a.0.y' } } }];
    let failNext = false;
    const feed = {
        listen: async (_kind: string, _pattern: string, listener: Listener) => {
            if (options.listenFails) {
                throw new Error('no subscription');
            }
            listeners.push(listener);
            return async () => undefined;
        },
    };
    const cache = new HistorySettingsCache(
        async () => {
            reads++;
            if (failNext) {
                failNext = false;
                throw new Error('database gone');
            }
            return rows;
        },
        feed as never,
        options.usable ?? (() => true),
    );
    return {
        cache,
        reads: () => reads,
        change: (next: CustomRow[]) => {
            rows = next;
            listeners.forEach(listener => listener('a.0.x'));
        },
        failNext: () => (failNext = true),
    };
}

t.test('held once changes are followed, until an object changes, then read again', async t => {
    const s = setUp();
    t.same(await s.cache.all(), [{ id: 'a.0.x', value: { 'history.0': { aliasId: 'a.0.y' } } }]);
    t.equal(s.reads(), 1, 'before the subscription is confirmed: read afresh');
    await s.cache.all();
    await Promise.all([s.cache.all(), s.cache.all()]);
    t.equal(s.reads(), 2, 'then one read for three calls');
    s.change([]);
    t.same(await s.cache.all(), [], 'the change is seen');
    t.equal(s.reads(), 3);
    s.cache.clear();
    await s.cache.all();
    t.equal(s.reads(), 4, 'cleared (an own write, an outage): read again');
});

t.test('a subscription that never confirms holds no call up', async t => {
    let listened = 0;
    const cache = new HistorySettingsCache(
        async () => [],
        { listen: () => (listened++, new Promise<never>(() => undefined)) } as never,
        () => true,
    );
    for (let i = 0; i < 3; i++) {
        t.same(await cache.all(), []);
    }
    t.equal(listened, 1, 'subscribed once');
});

t.test('a failed read is not kept', async t => {
    const s = setUp();
    await s.cache.all();
    s.failNext();
    await t.rejects(s.cache.all(), /database gone/);
    t.equal((await s.cache.all()).length, 1, 'the next call reads again');
    t.equal(s.reads(), 3);
});

t.test('while the caches are off, or changes cannot be followed, every call reads', async t => {
    let usable = false;
    const off = setUp({ usable: () => usable });
    await off.cache.all();
    await off.cache.all();
    t.equal(off.reads(), 2, 'caches off');
    usable = true;
    await off.cache.all();
    await off.cache.all();
    await off.cache.all();
    t.equal(off.reads(), 4, 'held again once usable (after one read while the subscription is confirmed)');
    const blind = setUp({ listenFails: true });
    await blind.cache.all();
    await blind.cache.all();
    t.equal(blind.reads(), 2, 'no subscription');
});
