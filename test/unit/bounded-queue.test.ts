/*
 * The one bounded queue of polling sessions, hooks and event-stream replay, and the one limits helper
 * of their registries: pure logic.
 */
import t from 'tap';
import { BoundedQueue } from '../../src/events/bounded-queue';
import { UserLimits } from '../../src/events/user-limits';
import { HttpError } from '../../src/http/http-error';
import { nodeTimers } from '../support/timers';

t.test('a full queue drops its oldest entries and counts them once', async t => {
    const q = new BoundedQueue<number>(3);
    for (let i = 1; i <= 5; i++) {
        q.push(i);
    }
    t.equal(q.length, 3);
    t.same([...q.values()], [3, 4, 5], 'the newest stay');
    t.equal(q.takeDropped(), 2);
    t.equal(q.takeDropped(), 0, 'counted once');
    t.equal(q.shift(), 3);
    t.equal([...q.values()][0], 4, 'the oldest left');
    t.same(q.takeAll(), [4, 5]);
    t.equal(q.length, 0);
    t.equal(q.shift(), undefined);
});

t.test('a byte limit drops by size, an entry larger than it at once', async t => {
    const dropped: string[] = [];
    const q = new BoundedQueue<string>(100, { max: 10, sizeOf: s => s.length }, s => dropped.push(s));
    q.push('aaaa');
    q.push('bbbb');
    q.push('cccc');
    t.same([...q.values()], ['bbbb', 'cccc'], 'within 10 bytes');
    t.same(dropped, ['aaaa'], 'told of what made room');
    q.push('x'.repeat(50));
    t.same([...q.values()], [], 'one entry larger than the limit is not kept');
    t.same(dropped, ['aaaa', 'bbbb', 'cccc', 'x'.repeat(50)], 'told of it last: the reader learns it was missed');
    t.equal(q.takeDropped(), 4);
    q.push('dd');
    t.same([...q.values()], ['dd'], 'the byte count follows shifts');
});

t.test('many shifts keep order and compact the storage', async t => {
    const q = new BoundedQueue<number>(5000);
    const out: number[] = [];
    for (let i = 0; i < 20_000; i++) {
        q.push(i);
        if (i % 3 !== 0) {
            out.push(q.shift()!);
        }
    }
    const rest = q.takeAll();
    t.same([...out, ...rest].slice(0, 10), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    t.equal(out.length + rest.length + q.takeDropped(), 20_000, 'every entry shifted, left or counted as dropped');
    t.ok([...out, ...rest].every((v, i, all) => i === 0 || v > all[i - 1]), 'ascending: nothing reordered');
});

t.test('limits count per user and in all, and refuse with 429', async t => {
    const limits = new UserLimits({ perUser: 2, total: 3 }, { message: 'Too many things', retryAfterS: 30 });
    limits.opened('a');
    limits.opened('a');
    t.notOk(limits.hasRoom('a'), 'a at its own limit');
    t.ok(limits.hasRoom('b'));
    limits.opened('b');
    t.notOk(limits.hasRoom('c'), 'the total is reached');
    try {
        limits.assertRoom('c', { url: 'x' });
        t.fail('no refusal');
    } catch (err) {
        t.ok(err instanceof HttpError);
        t.equal((err as HttpError).status, 429);
        t.equal((err as HttpError).headers?.['Retry-After'], '30');
        t.same((err as HttpError).context, { url: 'x' });
    }
    limits.closed('a');
    t.ok(limits.hasRoom('c'));
    t.equal(limits.count('a'), 1);
    t.equal(limits.count(), 2);
    limits.closed('a');
    limits.closed('a');
    t.equal(limits.count('a'), 0, 'never below zero');
    t.equal(limits.count(), 1, "b's stays counted");
    limits.clear();
    t.equal(limits.count(), 0);
});

t.test('a polling session that nobody polls keeps the newest 1,000 events and reports the rest', async t => {
    const { PollingSession } = await import('../../src/events/polling');
    // the session's own subscriptions are not used here: events are handed to it directly
    const session = new PollingSession('system.user.admin', { listen: async () => async () => undefined }, nodeTimers);
    for (let i = 0; i < 1003; i++) {
        session.deliver({ id: 'a.b', state: { val: i, ack: true, ts: i, lc: i, from: 'x', q: 0 } });
    }
    const stays = (): boolean => false;
    const poll = (batch: boolean): Promise<unknown> => new Promise(resolve => session.wait(batch, stays, resolve));
    t.same(await poll(false), { overflow: true, dropped: 3 }, 'first the overflow');
    t.match(await poll(false), { state: { val: 3 } }, 'then the oldest kept');
    const rest = (await poll(true)) as unknown[];
    t.equal(rest.length, 999, 'a batch takes the rest');
    t.match(rest.at(-1), { state: { val: 1002 } });
});

t.test('a queue emptied one entry at a time starts over and stays in order', async t => {
    const { BoundedQueue } = await import('../../src/events/bounded-queue');
    const queue = new BoundedQueue<number>(3);
    const seen: Array<number | undefined> = [];
    for (let round = 0; round < 2000; round++) {
        queue.push(round * 2);
        queue.push(round * 2 + 1);
        seen.push(queue.shift(), queue.shift());
        if (queue.length !== 0) {
            break;
        }
    }
    t.same(seen, Array.from({ length: 4000 }, (_, i) => i), 'every entry once, oldest first');
    t.equal(queue.shift(), undefined, 'empty at the end');
    queue.push(1);
    queue.push(2);
    queue.push(3);
    queue.push(4);
    t.same(queue.takeDropped(), 1, 'the bound still holds after starting over');
    t.same(queue.takeAll(), [2, 3, 4]);
});
