/*
 * A shared polling session's copy on an instance that did not answer the poll: the events another
 * instance handed out leave its queue, also those that reach it only after the note (they were still
 * in the rights check), and a copy made from the record reports a loss of unknown size first.
 */
import t from 'tap';
import { eventIdentity, PollingSession } from '../../src/events/polling';
import type { EventBody } from '../../src/events/hub';
import { nodeTimers } from '../support/timers';

const event = (val: number): EventBody => ({ id: '0_userdata.0.x', state: { val, ack: true, ts: 1000 + val, lc: 1000 + val, from: 'x', q: 0 } });
const noFeed = { listen: async () => async () => undefined };
const stays = (): boolean => false;
const poll = (session: PollingSession): Promise<unknown> => new Promise(resolve => session.wait(true, stays, resolve));
const vals = (answer: unknown): unknown[] => (answer as Array<{ state?: { val: number }; overflow?: true }>).map(e => (e.overflow ? 'overflow' : e.state?.val));

t.test('handed out elsewhere: dropped from the queue, or skipped when it arrives later', async t => {
    const copy = new PollingSession('system.user.watcher', noFeed, nodeTimers, undefined, 'sid');
    copy.deliver(event(1));
    copy.deliver(event(2));
    // 1 is queued here, 3 is not here yet: both were handed out by the other instance
    copy.handedOut([eventIdentity(event(1)), eventIdentity(event(3))]);
    copy.deliver(event(3));
    copy.deliver(event(4));
    t.same(vals(await poll(copy)), [2, 4], 'only what nobody handed out yet, in order');
    copy.deliver(event(3));
    t.same(vals(await poll(copy)), [3], 'a second event of the same name was not handed out: it comes');
});

t.test('copied from the record: overflow without a count first, then the events', async t => {
    const copy = new PollingSession('system.user.watcher', noFeed, nodeTimers, undefined, 'sid');
    copy.markLost();
    copy.deliver(event(5));
    t.same(await poll(copy), [{ overflow: true }, event(5)]);
    copy.deliver(event(6));
    t.same(vals(await poll(copy)), [6], 'reported once');
});
