/*
 * Event-stream ids that name their origin: a Last-Event-ID from another instance on the same
 * database, or from before a restart, is never read as a local sequence number. The stream then
 * starts with `overflow` and re-reads what changed since the id's time, as the caller may see it.
 * Both instances run in this process on the test's own real storage.
 */
import t from 'tap';
import { createState, createUser } from '../support/iobroker';
import { startInProcess, type InProcessApp, type InProcessHost } from '../support/in-process';
import { basic } from '../support/raw-request';
import { openSse, type SseClient, type SseEvent } from '../support/sse-client';

const ID_FORMAT = /^[A-Za-z0-9_-]{8}\.\d+\.\d+$/;
const PREFIX = '0_userdata.0.resume';

let host: InProcessHost;
let zero: InProcessApp;
let one: InProcessApp;
const urls = new Map<InProcessApp, string>();
const open: SseClient[] = [];

t.before(async () => {
    host = await startInProcess();
    for (const name of ['a', 'b', 'c', 'd', 'e', 'secret']) {
        await createState(host.storage, `${PREFIX}.${name}`, { type: 'number' }, 0);
    }
    zero = await host.app({});
    one = await host.app({}, 'rest-api.1');
    for (const app of [zero, one]) {
        urls.set(app, await app.serve());
    }
});
t.teardown(async () => {
    open.forEach(s => s.close());
    for (const app of [zero, one]) {
        await app?.close();
    }
    await host?.stop();
});

async function events(app: InProcessApp, query: string, headers?: Record<string, string>): Promise<SseClient> {
    const stream = await openSse(`${urls.get(app)}/v1/events?${query}`, headers);
    open.push(stream);
    return stream;
}
const write = (id: string, val: number) => host.storage.states.setStateAsync(id, { val, ack: true });
const data = (event: SseEvent) => JSON.parse(event.data ?? 'null');
const seq = (event: SseEvent) => Number(event.id!.split('.')[1]);

/** Waits on `stream` until it reported `val` for `id`. */
async function until(stream: SseClient, id: string, val: number): Promise<void> {
    for (;;) {
        const body = data(await stream.nextEvent());
        if (body.id === id && body.state?.val === val) {
            return;
        }
    }
}

t.test('ids name their origin, count up within a stream and carry the value time', async t => {
    const id = `${PREFIX}.a`;
    const sse = await events(zero, `pattern=${id}`);
    await write(id, 1);
    await write(id, 2);
    const [first, second] = [await sse.nextEvent(), await sse.nextEvent()];
    t.match(first.id, ID_FORMAT);
    t.equal(first.id!.split('.')[0], second.id!.split('.')[0], 'one origin per stream');
    t.equal(seq(second), seq(first) + 1);
    t.equal(Number(second.id!.split('.')[2]), data(second).state.ts, 'the time is the value time');
    sse.close();
});

t.test('resumed on another instance: overflow, then the values changed since, then live events', async t => {
    const id = `${PREFIX}.b`;
    const sse = await events(zero, `pattern=${id}`);
    await write(id, 1);
    const seen = await sse.nextEvent();
    sse.close();
    await write(id, 2);
    await write(id, 3);
    const again = await events(one, `pattern=${id}`, { 'Last-Event-ID': seen.id! });
    const overflow = await again.nextEvent();
    t.equal(overflow.event, 'overflow', 'the steps between are gone: said first');
    const caught = await again.nextEvent();
    t.match(data(caught), { id, state: { val: 3 } }, 'the current value, re-read');
    t.match(caught.id, ID_FORMAT);
    t.not(caught.id!.split('.')[0], seen.id!.split('.')[0], 'in the new instance ids');
    await write(id, 4);
    t.match(data(await again.nextEvent()), { id, state: { val: 4 } }, 'then live');
    again.close();
});

t.test('another instance already streaming the pattern never takes a foreign id for its own', async t => {
    const id = `${PREFIX}.c`;
    // rest-api.1 has a channel for this pattern whose own sequence has gone past the foreign id's
    const busy = await events(one, `pattern=${id}`);
    for (let val = 1; val <= 5; val++) {
        await write(id, val);
    }
    await until(busy, id, 5);
    const sse = await events(zero, `pattern=${id}`);
    await write(id, 6);
    const seen = await sse.nextEvent();
    sse.close();
    await until(busy, id, 6);
    await write(id, 7);
    await until(busy, id, 7);
    t.ok(seq(seen) < 7, `the foreign sequence number ${seq(seen)} is one rest-api.1 has issued too`);
    const again = await events(one, `pattern=${id}`, { 'Last-Event-ID': seen.id! });
    t.equal((await again.nextEvent()).event, 'overflow');
    t.match(data(await again.nextEvent()), { id, state: { val: 7 } }, 'nothing skipped: the change after the id arrives');
    busy.close();
    again.close();
});

t.test('after a restart: an id from before it gets overflow and the changes since, not a silent gap', async t => {
    const id = `${PREFIX}.d`;
    const sse = await events(zero, `pattern=${id}`);
    await write(id, 1);
    const seen = await sse.nextEvent();
    sse.close();
    await zero.close();
    zero = await host.app({});
    urls.set(zero, await zero.serve());
    await write(id, 2);
    const again = await events(zero, `pattern=${id}`, { 'Last-Event-ID': seen.id! });
    t.equal((await again.nextEvent()).event, 'overflow');
    t.match(data(await again.nextEvent()), { id, state: { val: 2 } });
    again.close();
});

t.test('an id we never issued (an old number, garbage) gets overflow and then only live events', async t => {
    const id = `${PREFIX}.e`;
    await write(id, 1);
    for (const lastId of ['42', 'not-an-id']) {
        const sse = await events(zero, `pattern=${id}&lastEventId=${encodeURIComponent(lastId)}`);
        t.equal((await sse.nextEvent()).event, 'overflow', lastId);
        const val = Number(lastId === '42') + 10;
        await write(id, val);
        t.match(data(await sse.nextEvent()), { id, state: { val } }, 'no re-read without a time');
        sse.close();
    }
});

t.test('object changes are re-read too, of every type', async t => {
    const pattern = `${PREFIX}obj.*`;
    const sse = await events(zero, `objects=${encodeURIComponent(pattern)}`);
    // with `ts`, as js-controller's adapters write objects (the bare DB client leaves it out)
    await host.storage.objects.setObjectAsync(`${PREFIX}obj.first`, { type: 'channel', common: { name: 'first' }, native: {}, ts: Date.now() } as ioBroker.Object);
    const seen = await sse.nextEvent();
    sse.close();
    await host.storage.objects.setObjectAsync(`${PREFIX}obj.folder`, { type: 'folder', common: { name: 'later' }, native: {}, ts: Date.now() + 1 } as ioBroker.Object);
    const again = await events(one, `objects=${encodeURIComponent(pattern)}`, { 'Last-Event-ID': seen.id! });
    t.equal((await again.nextEvent()).event, 'overflow');
    const caught = [data(await again.nextEvent()), data(await again.nextEvent())];
    t.same(caught.map(e => e.id), [`${PREFIX}obj.first`, `${PREFIX}obj.folder`], 'oldest first, the last one seen again rather than skipped');
    t.equal(caught[1].obj.type, 'folder');
    again.close();
});

t.test('a limited user resuming elsewhere is not shown what it may not read', async t => {
    const limitedZero = await host.app({ auth: true });
    const limitedOne = await host.app({ auth: true }, 'rest-api.1');
    t.teardown(async () => {
        await limitedZero.close();
        await limitedOne.close();
    });
    urls.set(limitedZero, await limitedZero.serve());
    urls.set(limitedOne, await limitedOne.serve());
    // read, without the list right of pattern listings: enough for a stream, and for its resume
    await createUser(host.storage, 'watcher', { state: { read: true }, object: { read: true } }, 'pw');
    const secret = `${PREFIX}.secret`;
    const obj = await host.storage.objects.getObjectAsync(secret);
    // owner admin, nobody else may read it
    await host.storage.objects.setObjectAsync(secret, { ...obj!, acl: { owner: 'system.user.admin', ownerGroup: 'system.group.administrator', object: 0x600, state: 0x600 } } as ioBroker.Object);
    const auth = basic('watcher', 'pw');
    const sse = await events(limitedZero, `pattern=${PREFIX}.*`, auth);
    await write(`${PREFIX}.a`, 100);
    const seen = await sse.nextEvent();
    t.match(data(seen), { id: `${PREFIX}.a` });
    sse.close();
    await write(secret, 99);
    await write(`${PREFIX}.a`, 101);
    const again = await events(limitedOne, `pattern=${PREFIX}.*`, auth);
    const resumed = await events(limitedOne, `pattern=${PREFIX}.*`, { ...auth, 'Last-Event-ID': seen.id! });
    t.equal(resumed.status, 200);
    t.equal((await resumed.nextEvent()).event, 'overflow');
    const ids: string[] = [];
    for (;;) {
        const body = data(await resumed.nextEvent());
        ids.push(body.id);
        if (body.id === `${PREFIX}.a` && body.state.val === 101) {
            break;
        }
    }
    t.notOk(ids.includes(secret), `re-read ids ${ids.join(', ')} leave out the unreadable state`);
    again.close();
    resumed.close();
});
