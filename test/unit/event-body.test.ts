/*
 * Pure logic: the subscriptions of one change share its body (a fan-out to 10,000 sessions makes one
 * object, not 10,000), and a body never carries another change's id, value or kind.
 */
import t from 'tap';
import { Subscription, type EventBody } from '../../src/events/hub';

function collecting(kind: 'state' | 'object', filter = {}): { sub: Subscription; got: EventBody[] } {
    const got: EventBody[] = [];
    return { sub: new Subscription(kind, '*', filter, { deliver: event => got.push(event) }), got };
}

t.test('one change, one body for every subscription', async t => {
    const a = collecting('state');
    const b = collecting('state');
    const state = { val: 1, ack: true, ts: 1, lc: 1, from: 'x', q: 0 } as ioBroker.State;
    a.sub.offer('0_userdata.0.a', state);
    b.sub.offer('0_userdata.0.a', state);
    t.equal(a.got[0], b.got[0], 'the same object');
    t.same(a.got[0], { id: '0_userdata.0.a', state });
});

t.test('the next change, or another id or kind, gets a body of its own', async t => {
    const s = collecting('state');
    const o = collecting('object');
    const first = { val: 1, ack: true, ts: 1, lc: 1, from: 'x', q: 0 } as ioBroker.State;
    const second = { ...first, val: 2, ts: 2 };
    s.sub.offer('0_userdata.0.a', first);
    s.sub.offer('0_userdata.0.a', second);
    s.sub.offer('0_userdata.0.b', second);
    s.sub.offer('0_userdata.0.b', null);
    const obj = { _id: '0_userdata.0.b', type: 'state', common: {}, native: {} } as unknown as ioBroker.Object;
    o.sub.offer('0_userdata.0.b', obj);
    o.sub.offer('0_userdata.0.b', undefined);
    t.same(s.got, [
        { id: '0_userdata.0.a', state: first },
        { id: '0_userdata.0.a', state: second },
        { id: '0_userdata.0.b', state: second },
        { id: '0_userdata.0.b', state: null },
    ]);
    t.same(o.got, [
        { id: '0_userdata.0.b', obj },
        { id: '0_userdata.0.b', obj: null },
    ]);
    t.equal(new Set(s.got).size, 4, 'four changes, four bodies');
});

t.test('a filtered subscription still drops what its filter suppresses', async t => {
    const plain = collecting('state');
    const onchange = collecting('state', { onchange: true });
    const state = { val: 5, ack: true, ts: 1, lc: 1, from: 'x', q: 0 } as ioBroker.State;
    const same = { ...state, ts: 2 };
    for (const value of [state, same]) {
        plain.sub.offer('0_userdata.0.c', value);
        onchange.sub.offer('0_userdata.0.c', value);
    }
    t.equal(plain.got.length, 2);
    t.equal(onchange.got.length, 1, 'the unchanged value is not reported again');
    t.equal(onchange.got[0], plain.got[0], 'and what it reports is the shared body');
});
