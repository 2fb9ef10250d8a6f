/*
 * An event's JSON text is made once per change and shared by every subscriber that gets the same
 * value object: pure logic.
 */
import t from 'tap';
import { eventText } from '../../src/events/event-text';
import { answerText } from '../../src/events/polling';

const state: ioBroker.State = { val: 21.5, ack: true, ts: 1, lc: 1, from: 'system.adapter.x.0', q: 0 };

t.test('the text is JSON.stringify of the event, shared for the same state object', async t => {
    const a = { id: 'a.b', state };
    const b = { id: 'a.b', state };
    t.equal(eventText(a), JSON.stringify(a));
    t.equal(eventText(b), eventText(a), 'a second subscriber gets the same text');
    t.equal(eventText(b), JSON.stringify(b), 'which is its own JSON too');
});

t.test('another id or another object is not served from the first text', async t => {
    t.equal(eventText({ id: 'c.d', state }), JSON.stringify({ id: 'c.d', state }));
    const other = { ...state, val: 22 };
    t.match(eventText({ id: 'a.b', state: other }), /"val":22/);
    t.equal(eventText({ id: 'a.b', state: null }), '{"id":"a.b","state":null}', 'a deletion');
    const obj = { _id: 'x', type: 'state', common: {}, native: {} } as unknown as ioBroker.Object;
    t.equal(eventText({ id: 'x', obj }), JSON.stringify({ id: 'x', obj }));
});

t.test('a poll answer on the wire: one event, a batch with an overflow first, nothing, a disconnect', async t => {
    const event = { id: 'a.b', state };
    t.equal(answerText(event), JSON.stringify(event));
    const batch = [{ overflow: true, dropped: 2 } as never, event];
    t.equal(answerText(batch), JSON.stringify(batch));
    t.equal(answerText(undefined), '');
    t.equal(answerText({ disconnect: true }), '{"disconnect":true}');
});

t.test('a device event of the same state object has its own text, with device and role', async t => {
    const shared: ioBroker.State = { ...state, val: 3 };
    const plain = { id: 'hm.0.a.LEVEL', state: shared };
    const device = { device: 'hm.0.a', role: 'SET', id: 'hm.0.a.LEVEL', state: shared };
    t.equal(eventText(plain), JSON.stringify(plain));
    t.equal(eventText(device), JSON.stringify(device), 'not the plain text made first');
    t.equal(eventText(plain), JSON.stringify(plain), 'and the plain event after it keeps its own');
});
