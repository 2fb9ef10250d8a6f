import t from 'tap';
import { sharedBarrier } from '../../src/storage/cache/shared-barrier';
import { nodeTimers } from '../support/timers';

t.test('callers of one turn share a round trip sent after that turn; later callers get their own', async t => {
    const sent: number[] = [];
    let turn = 0;
    const barrier = sharedBarrier(async () => {
        sent.push(turn);
    }, nodeTimers);
    const first = [barrier(), barrier(), barrier()];
    turn = 1; // still the same turn: the round trip must not have been sent yet
    t.same(sent, [], 'not sent within the callers turn');
    await Promise.all(first);
    t.same(sent, [1], 'one round trip for three callers, sent after them');
    await barrier();
    t.equal(sent.length, 2, 'a caller after that gets a new one');
});

t.test('one round trip at a time: callers arriving while one is out share the next, sent after they arrived', async t => {
    const log: string[] = [];
    let release!: () => void;
    let inFlight = 0;
    let most = 0;
    const barrier = sharedBarrier(() => {
        inFlight++;
        most = Math.max(most, inFlight);
        log.push('sent');
        return new Promise<void>(resolve => (release = resolve)).then(() => void inFlight--);
    }, nodeTimers);
    const first = barrier();
    await new Promise(r => setImmediate(r));
    await new Promise(r => setImmediate(r));
    t.same(log, ['sent'], 'the first is out');
    log.push('late callers');
    const late = [barrier(), barrier(), barrier()];
    let lateDone = false;
    void Promise.all(late).then(() => (lateDone = true));
    release();
    await first;
    await new Promise(r => setImmediate(r));
    await new Promise(r => setImmediate(r));
    t.same(log, ['sent', 'late callers', 'sent'], 'the late callers get one round trip, sent after they arrived');
    t.notOk(lateDone, 'and wait for it, not for the one that was out before them');
    release();
    await Promise.all(late);
    t.equal(most, 1, 'never two round trips out at once');
});

t.test('a failed round trip fails its callers only; the next one is sent', async t => {
    let fail = true;
    const barrier = sharedBarrier(async () => {
        if (fail) {
            fail = false;
            throw new Error('connection lost');
        }
    }, nodeTimers);
    await t.rejects(barrier(), /connection lost/);
    await t.resolves(barrier());
});

t.test('a round trip whose reply never comes fails its callers after the time limit; later callers get a new one', async t => {
    let sent = 0;
    const barrier = sharedBarrier(() => (++sent === 1 ? new Promise(() => undefined) : Promise.resolve()), nodeTimers, 50);
    const stuck = barrier();
    await t.rejects(stuck, /no barrier reply within 50 ms/);
    await t.resolves(barrier(), 'the next round trip is sent and answered');
    t.equal(sent, 2);
});
