import t from 'tap';
import { startInProcess, type InProcessHost } from '../support/in-process';
import { appFixture, type AppFixture } from '../support/in-process-fixture';
import { openSse, type SseEvent } from '../support/sse-client';

let host: InProcessHost;
let iob: AppFixture;
t.before(async () => {
    host = await startInProcess();
    // event streams are read over a real socket
    iob = await appFixture(host, {}, { serve: true });
    for (const name of ['a', 'b', 'burst', 'resume', 'old', 'fresh']) {
        await iob.createState(`0_userdata.0.sse.${name}`, { type: 'number' }, 0);
    }
});
t.teardown(async () => {
    await iob?.close();
    await host?.stop();
});

const events = (query: string, headers?: Record<string, string>) => openSse(`${iob.baseUrl}/v1/events?${query}`, headers);
const write = (id: string, val: number) => iob.storage.states.setStateAsync(id, { val, ack: true });
const data = (event: SseEvent) => JSON.parse(event.data ?? 'null');
/** The sequence number in an id `<origin>.<n>.<time>`. */
const seq = (event: SseEvent) => Number(event.id!.split('.')[1]);

/** A stream on a channel of its own: once it saw `val`, the adapter has every write before it. */
async function watch(id: string): Promise<(val: number) => Promise<void>> {
    const observer = await events(`pattern=${id},0_userdata.0.sse.unused`);
    return async val => {
        let seen: unknown;
        do {
            seen = data(await observer.nextEvent()).state.val;
        } while (seen !== val);
        observer.close();
    };
}

t.test('state and object changes arrive as events with increasing ids', async t => {
    const sse = await events('pattern=0_userdata.0.sse.a&objects=0_userdata.0.sseobj.*');
    t.equal(sse.status, 200);
    t.match(sse.headers['content-type'], /^text\/event-stream/);
    t.equal(sse.headers['cache-control'], 'no-store, no-transform', 'nothing keeps events, and nothing compresses them (a compressor holds them back)');
    t.equal(sse.headers['x-accel-buffering'], 'no');
    await write('0_userdata.0.sse.a', 7);
    const first = await sse.nextEvent();
    t.match(data(first), { id: '0_userdata.0.sse.a', state: { val: 7, ack: true } });
    await iob.createState('0_userdata.0.sseobj.x', { type: 'string' });
    const second = await sse.nextEvent();
    t.match(data(second), { id: '0_userdata.0.sseobj.x', obj: { type: 'state', common: { type: 'string' } } });
    t.ok(seq(second) > seq(first), `${second.id} after ${first.id}`);
    sse.close();
});

t.test('a burst of 100 writes arrives completely and in order', async t => {
    const id = '0_userdata.0.sse.burst';
    const sse = await events(`pattern=${id}`);
    for (let val = 1; val <= 100; val++) {
        await write(id, val);
    }
    const received: SseEvent[] = [];
    for (let i = 0; i < 100; i++) {
        received.push(await sse.nextEvent());
    }
    t.same(received.map(e => data(e).state.val), Array.from({ length: 100 }, (_, i) => i + 1));
    t.ok(received.every((e, i) => i === 0 || seq(e) === seq(received[i - 1]) + 1), 'ids count up by one');
    sse.close();
});

t.test('heartbeat comments arrive at the requested interval', async t => {
    const sse = await events('pattern=0_userdata.0.sse.b&heartbeat=1000');
    const started = Date.now();
    t.same(await sse.next(3000), { comment: 'ping' });
    t.ok(Date.now() - started >= 900, 'not before the interval');
    sse.close();
});

t.test('Last-Event-ID after a disconnect replays exactly the missed events', async t => {
    const id = '0_userdata.0.sse.resume';
    const first = await events(`pattern=${id}`);
    await write(id, 1);
    const seen = await first.nextEvent();
    first.close();
    await first.ended;
    const arrived = await watch(id);
    await write(id, 2);
    await write(id, 3);
    await arrived(3);
    const again = await events(`pattern=${id}`, { 'Last-Event-ID': seen.id! });
    const missed = [await again.nextEvent(), await again.nextEvent()];
    t.same(missed.map(e => data(e).state.val), [2, 3]);
    t.same(missed.map(seq), [seq(seen) + 1, seq(seen) + 2]);
    await write(id, 4);
    const live = await again.nextEvent();
    t.same([data(live).state.val, seq(live)], [4, seq(seen) + 3], 'then live events, nothing twice');
    again.close();
});

t.test('an id older than the replay buffer starts with an overflow event', async t => {
    const id = '0_userdata.0.sse.old';
    const first = await events(`pattern=${id}`);
    await write(id, 0);
    const seen = await first.nextEvent();
    first.close();
    const arrived = await watch(id);
    for (let val = 1; val <= 510; val++) {
        await write(id, val);
    }
    await arrived(510);
    const again = await events(`pattern=${id}&lastEventId=${seen.id}`);
    const overflow = await again.nextEvent();
    t.equal(overflow.event, 'overflow');
    t.same(data(overflow), { overflow: true });
    t.equal(data(await again.nextEvent()).state.val, 11, 'then the 500 buffered events, oldest first');
    again.close();
});

t.test('an id this channel never issued also gets an overflow, then live events in its own ids', async t => {
    const id = '0_userdata.0.sse.fresh';
    const sse = await events(`pattern=${id}`, { 'Last-Event-ID': '42' });
    t.same(data(await sse.nextEvent()), { overflow: true });
    await write(id, 5);
    const next = await sse.nextEvent();
    t.equal(data(next).state.val, 5);
    t.match(next.id, /^[A-Za-z0-9_-]{8}\.\d+\.\d+$/);
    sse.close();
});

t.test('without pattern, objects or devices: 422 naming each', async t => {
    for (const query of ['', '?pattern=%20,&objects=']) {
        const res = await iob.request(`/v1/events${query}`);
        t.equal(res.status, 422, query);
        t.match(res.json.error, /pattern.*objects/);
        t.same(res.json.details.map((d: { param: string }) => d.param), ['pattern', 'objects', 'devices']);
    }
    t.equal((await iob.request('/v1/events?pattern=a.*&heartbeat=soon')).status, 422);
});

t.test('HEAD answers the headers and ends', async t => {
    const res = await iob.request('/v1/events?pattern=0_userdata.0.sse.a', { method: 'HEAD' });
    t.equal(res.status, 200);
    t.match(res.headers['content-type'], /^text\/event-stream/);
});

t.test('a limited user: object patterns need object read, streams are capped', async t => {
    const limited = await appFixture(host, { defaultUser: 'limited' }, { serve: true });
    t.teardown(() => limited.close());
    await limited.createUser('limited', { state: { read: true }, object: { read: false } });
    for (const query of ['objects=0_userdata.0.*', 'pattern=0_userdata.0.*&objects=0_userdata.0.*']) {
        const res = await limited.request(`/v1/events?${query}`);
        t.equal(res.status, 403, query);
        t.same(res.json, { error: 'permissionError' });
    }
    const open = [];
    for (let i = 0; i < 10; i++) {
        open.push(await openSse(`${limited.baseUrl}/v1/events?pattern=0_userdata.0.s${i}`));
    }
    t.same(open.map(s => s.status), Array(10).fill(200));
    const refused = await limited.request('/v1/events?pattern=0_userdata.0.more');
    t.equal(refused.status, 429);
    t.match(refused.json, { error: /Too many/ });
    open.forEach(s => s.close());
});

t.test('an adapter restart ends every stream with {"disconnect":true}; the process stays up', async t => {
    const sse = await events('pattern=0_userdata.0.sse.a');
    const restarted = iob.restart();
    const last = await sse.nextEvent(10_000);
    t.same(data(last), { disconnect: true });
    t.equal(last.id, undefined, 'no id: a resume continues after the last real event');
    await sse.ended;
    await restarted;
    t.equal((await iob.request('/name')).status, 200);
});
