/*
 * The records ended event-stream channels leave in the states database: bounded in number and size,
 * per user and in all, the oldest deleted first (src/events/sse-log-ended.ts).
 */
import t from 'tap';
import { ENDED_LIMITS, EndedRecords } from '../../src/events/sse-log-ended';

const later = () => Date.now() + 600_000;

t.test('per user: the newest 10 records within 640 KB stay', async t => {
    const records = new EndedRecords();
    const gone: string[] = [];
    for (let i = 0; i < 25; i++) {
        gone.push(...records.add({ origin: `a${i}`, user: 'a', bytes: 100, expires: later() }));
    }
    t.same(
        gone,
        [...Array(15).keys()].map(i => `a${i}`),
        'the 15 oldest go, in order',
    );
    t.same(records.add({ origin: 'b0', user: 'b', bytes: 100, expires: later() }), [], "another user's own room");
    const big = new EndedRecords();
    const dropped = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10].flatMap(i =>
        big.add({ origin: `x${i}`, user: 'x', bytes: 64 * 1024, expires: later() }),
    );
    t.same(dropped, ['x0'], '10 full records fit in 640 KB, the 11th pushes the first out');
    t.equal(ENDED_LIMITS.perUser.bytes, 640 * 1024);
});

t.test('in all: 200 records within 4 MB, whoever they belong to', async t => {
    const records = new EndedRecords();
    let gone = 0;
    for (let i = 0; i < 300; i++) {
        gone += records.add({ origin: `o${i}`, user: `u${i % 50}`, bytes: 1000, expires: later() }).length;
    }
    t.equal(gone, 100, 'beyond 200 records');
    const sized = new EndedRecords();
    const dropped: string[] = [];
    for (let i = 0; i < 100; i++) {
        dropped.push(...sized.add({ origin: `s${i}`, user: `u${i}`, bytes: 60 * 1024, expires: later() }));
    }
    const kept = 100 - dropped.length;
    t.equal(kept, Math.floor(4096 / 60), `as many 60 KB records as fit in 4 MB (${kept})`);
    t.same(dropped.slice(0, 2), ['s0', 's1'], 'the oldest first');
});

t.test('records the database let go by themselves no longer count', async t => {
    const records = new EndedRecords();
    for (let i = 0; i < 10; i++) {
        records.add({ origin: `e${i}`, user: 'a', bytes: 100, expires: Date.now() - 1 });
    }
    t.same(records.add({ origin: 'fresh', user: 'a', bytes: 100, expires: later() }), [], 'nothing to delete');
});
