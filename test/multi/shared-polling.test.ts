/*
 * Long-polling sessions shared by two instances on one database, as behind a round-robin proxy without
 * sticky sessions: connect, subscribe and polls land on alternating instances. Both instances run in this
 * process on the test's own real storage; js-controller's `alive` states say that the other one lives.
 */
import t from 'tap';
import { createState, createUser } from '../support/iobroker';
import { startInProcess, type InProcessApp, type InProcessHost } from '../support/in-process';
import { sharingInstance } from '../support/peers';
import { basic } from '../support/raw-request';
import { sleep } from '../support/until';

const WATCHER = basic('watcher', 'pw');
const OTHER = basic('other', 'pw');
const ID = '0_userdata.0.shared.poll';

let host: InProcessHost;
let zero: InProcessApp;
let one: InProcessApp;
t.before(async () => {
    host = await startInProcess();
    await createState(host.storage, ID, { type: 'number' }, 0);
    for (const instance of [0, 1]) {
        // js-controller keeps these true (with a TTL) while the instances' processes live
        await sharingInstance(host.storage, instance);
    }
    await createUser(host.storage, 'watcher', { state: { read: true }, object: { read: true } }, 'pw');
    await createUser(host.storage, 'other', { state: { read: true }, object: { read: true } }, 'pw');
    zero = await host.app({ auth: true });
    one = await host.app({ auth: true }, 'rest-api.1');
});
t.teardown(async () => {
    await zero?.close();
    await one?.close();
    await host?.stop();
});

const write = (val: number) => host.storage.states.setStateAsync(ID, { val, ack: true, from: 'system.adapter.test.0' });

/** One poll on `app`, with a write `val` shortly after it started waiting. */
async function pollDuring(app: InProcessApp, sid: string, val: number): Promise<string> {
    const poll = app.request(`/v1/polling?sid=${sid}&timeout=3000`, { headers: WATCHER });
    await sleep(50);
    await write(val);
    return (await poll).text;
}

t.test('polls alternating between the instances get every event once', async t => {
    t.equal((await zero.request('/v1/polling?sid=alt&connect&timeout=3000', { headers: WATCHER })).text, '_');
    const subscribed = await one.request(`/v1/state/${ID}/subscribe?sid=alt&method=polling`, { headers: WATCHER });
    t.equal(subscribed.status, 200);
    const got: unknown[] = [];
    for (let val = 1; val <= 10; val++) {
        const text = await pollDuring(val % 2 ? zero : one, 'alt', val);
        got.push(text ? JSON.parse(text).state?.val : 'empty');
    }
    t.same(got, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 'each poll got the write made while it waited');
    for (const app of [zero, one]) {
        const rest = await app.request('/v1/polling?sid=alt&batch=true&timeout=1000', { headers: WATCHER });
        t.equal(rest.text, '', `${app.services.meta.namespace} has nothing left to hand out twice`);
    }
    const listed = await zero.request('/v1/states/subscribe?sid=alt&method=polling', { headers: WATCHER });
    t.same(listed.json, { states: [ID] }, 'the instance that did not take the subscription lists it');
});

t.test("another user naming the session's sid gets nothing of it, on either instance", async t => {
    for (const app of [zero, one]) {
        const listed = await app.request('/v1/states/subscribe?sid=alt&method=polling', { headers: OTHER });
        t.equal(listed.status, 404, `${app.services.meta.namespace}: not their session`);
    }
    for (const app of [zero, one]) {
        // their poll opens a session of their own under that sid, empty
        const poll = app.request('/v1/polling?sid=alt&batch=true&timeout=1000', { headers: OTHER });
        await sleep(50);
        await write(100);
        t.equal((await poll).text, '', `${app.services.meta.namespace}: no event of the watcher's`);
    }
    // the watcher's session kept them, also on the instance that did not take the subscription
    const mine = await zero.request('/v1/polling?sid=alt&batch=true&timeout=1000', { headers: WATCHER });
    t.same(JSON.parse(mine.text).map((e: { state: { val: number } }) => e.state.val), [100, 100]);
});

t.test('an instance that lost its copy reads the record: overflow first, then the events', async t => {
    // as after a restart, before the others told it of their sessions again
    await one.services.events.polling.remove('system.user.watcher', 'alt');
    const first = await one.request('/v1/polling?sid=alt&batch=true&timeout=1000', { headers: WATCHER });
    t.same(JSON.parse(first.text || '[]'), [{ overflow: true }], 'it cannot know what it missed, and says so');
    const next = await pollDuring(one, 'alt', 300);
    t.match(JSON.parse(next || 'null'), { state: { val: 300 } }, 'the subscriptions came with the record');
    const other = await zero.request('/v1/polling?sid=alt&batch=true&timeout=1000', { headers: WATCHER });
    t.equal(other.text, '', 'and the other instance does not hand it out again');
});

t.test('an instance that starts later answers the session: its events, or overflow first', async t => {
    const two = await host.app({ auth: true }, 'rest-api.2');
    t.teardown(() => two.close());
    const first = await two.request('/v1/polling?sid=alt&batch=true&timeout=3000', { headers: WATCHER });
    const answers: unknown[] = first.text ? JSON.parse(first.text) : [];
    if (answers.length === 0) {
        // it knew the session (copied when it said hello): no loss, the next write comes
        const next = await pollDuring(two, 'alt', 200);
        t.match(JSON.parse(next), { state: { val: 200 } });
    } else {
        t.same(answers, [{ overflow: true }], 'copied from the record: what it could not keep is reported');
        const next = await pollDuring(two, 'alt', 200);
        t.match(JSON.parse(next), { state: { val: 200 } });
    }
    const listed = await two.request('/v1/states/subscribe?sid=alt&method=polling', { headers: WATCHER });
    t.same(listed.json, { states: [ID] });
});

/** A note as instance rest-api.7 would write it (one that answered a poll and then died, or not). */
// a state of their own: the app closed above shared the test adapter's subscription of ID with the others
const ID2 = '0_userdata.0.shared.poll2';
t.before(() => createState(host.storage, ID2, { type: 'number' }, 0));
const noteFrom7 = (note: Record<string, unknown>) =>
    host.storage.states.setStateAsync('rest-api.7.polling', { val: JSON.stringify(note), ack: true, from: 'system.adapter.rest-api.7' });

t.test('an answer another instance handed out but never said reached the client: the next poll here reports it lost, with the count', async t => {
    t.equal((await zero.request('/v1/polling?sid=died&connect&timeout=3000', { headers: WATCHER })).text, '_');
    t.equal((await one.request(`/v1/state/${ID2}/subscribe?sid=died&method=polling`, { headers: WATCHER })).status, 200);
    // rest-api.7 tells it hands out two events, then dies before its answer went out: no 'delivered'
    await noteFrom7({ t: 'handed', owner: 'system.user.watcher', sid: 'died', timeout: 3000, events: ['state:x:1', 'state:x:2'], k: 1 });
    await sleep(100);
    const started = Date.now();
    const answer = await one.request('/v1/polling?sid=died&timeout=3000', { headers: WATCHER });
    t.same(JSON.parse(answer.text || 'null'), { overflow: true, dropped: 2 }, 'never silently missing');
    t.ok(Date.now() - started < 2500, 'after a short wait for the confirmation, not the whole poll timeout');
    const other = await zero.request('/v1/polling?sid=died&batch=true&timeout=1000', { headers: WATCHER });
    t.equal(other.text, '', 'the instance that reported it tells the other, which does not report it again');
});

t.test('an answer another instance confirms is not reported; one it says did not reach the client is', async t => {
    t.equal((await zero.request('/v1/polling?sid=told&connect&timeout=3000', { headers: WATCHER })).text, '_');
    t.equal((await one.request(`/v1/state/${ID2}/subscribe?sid=told&method=polling`, { headers: WATCHER })).status, 200);
    await noteFrom7({ t: 'handed', owner: 'system.user.watcher', sid: 'told', timeout: 3000, events: ['state:x:3'], k: 5 });
    await sleep(50);
    await noteFrom7({ t: 'delivered', owner: 'system.user.watcher', sid: 'told', k: 5, reached: true });
    const poll = one.request('/v1/polling?sid=told&timeout=3000', { headers: WATCHER });
    await sleep(50);
    await host.storage.states.setStateAsync(ID2, { val: 400, ack: true, from: 'system.adapter.test.0' });
    t.match(JSON.parse((await poll).text || 'null'), { state: { val: 400 } }, 'confirmed: no overflow, the next event');
    await noteFrom7({ t: 'handed', owner: 'system.user.watcher', sid: 'told', timeout: 3000, events: ['state:x:4', 'state:x:5', 'state:x:6'], k: 6 });
    await sleep(50);
    await noteFrom7({ t: 'delivered', owner: 'system.user.watcher', sid: 'told', k: 6, reached: false });
    const lost = await zero.request('/v1/polling?sid=told&timeout=3000', { headers: WATCHER });
    t.same(JSON.parse(lost.text || 'null'), { overflow: true, dropped: 3 }, 'the client went away before the answer: reported');
});
