/*
 * Event-stream ids that name their origin: a Last-Event-ID from another instance on the same
 * database, or from before a restart, is never read as a local sequence number. The channel that
 * issued it keeps its recent events in the states database: the resume replays exactly what was
 * missed, as the caller may read it now; where the log cannot tell (it ended before the changes), the
 * stream starts with `overflow` and re-reads what changed since.
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

t.test('resumed on another instance: exactly the events it missed, then live events', async t => {
    const id = `${PREFIX}.b`;
    const sse = await events(zero, `pattern=${id}`);
    await write(id, 1);
    const seen = await sse.nextEvent();
    sse.close();
    await write(id, 2);
    await write(id, 3);
    const again = await events(one, `pattern=${id}`, { 'Last-Event-ID': seen.id! });
    const second = await again.nextEvent();
    t.match(data(second), { id, state: { val: 2 } }, 'the first step it missed, from the shared log: no overflow');
    t.match(data(await again.nextEvent()), { id, state: { val: 3 } }, 'and the next');
    t.match(second.id, ID_FORMAT);
    t.equal(
        second.id!.split('.')[0],
        seen.id!.split('.')[0],
        'replayed with their own ids: a replay cut short resumes from the same log',
    );
    await write(id, 4);
    const live = await again.nextEvent();
    t.match(data(live), { id, state: { val: 4 } }, 'then live');
    t.not(live.id!.split('.')[0], seen.id!.split('.')[0], 'in the new instance ids');
    again.close();
});

t.test(
    'five events missed while away, resumed on the other instance and on a restarted one: 5 of 5, no overflow',
    async t => {
        const id = `${PREFIX}.e`;
        const sse = await events(zero, `pattern=${id}`);
        await write(id, 10);
        const seen = await sse.nextEvent();
        sse.close();
        for (let val = 11; val <= 15; val++) {
            await write(id, val);
        }
        // the channel left behind writes its log at most every half second: the last write lands within it
        await new Promise(r => setTimeout(r, 800));
        const elsewhere = await events(one, `pattern=${id}`, { 'Last-Event-ID': seen.id! });
        const other: number[] = [];
        for (let i = 0; i < 5; i++) {
            const event = await elsewhere.nextEvent();
            t.not(event.event, 'overflow', 'no overflow');
            other.push(data(event).state.val);
        }
        t.same(other, [11, 12, 13, 14, 15], 'on the other instance');
        elsewhere.close();

        await zero.close();
        zero = await host.app({});
        urls.set(zero, await zero.serve());
        const restarted = await events(zero, `pattern=${id}`, { 'Last-Event-ID': seen.id! });
        const again: number[] = [];
        for (let i = 0; i < 5; i++) {
            const event = await restarted.nextEvent();
            t.not(event.event, 'overflow', 'no overflow');
            again.push(data(event).state.val);
        }
        t.same(again, [11, 12, 13, 14, 15], 'on the same instance after its restart');
        await write(id, 16);
        t.match(data(await restarted.nextEvent()), { id, state: { val: 16 } }, 'then live');
        restarted.close();
    },
);

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
    const next = await again.nextEvent();
    t.not(next.event, 'overflow', 'resumed from the log of the channel that issued the id');
    t.match(data(next), { id, state: { val: 7 } }, 'nothing skipped: the change after the id arrives');
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

t.test(
    'object changes are re-read too, of every type, when the channel that issued the id ended before them',
    async t => {
        const pattern = `${PREFIX}obj.*`;
        const sse = await events(zero, `objects=${encodeURIComponent(pattern)}`);
        // with `ts`, as js-controller's adapters write objects (the bare DB client leaves it out)
        await host.storage.objects.setObjectAsync(`${PREFIX}obj.first`, {
            type: 'channel',
            common: { name: 'first' },
            native: {},
            ts: Date.now(),
        } as ioBroker.Object);
        const seen = await sse.nextEvent();
        sse.close();
        // its instance restarts: nothing logs what changes until the client is back
        await zero.close();
        zero = await host.app({});
        urls.set(zero, await zero.serve());
        await host.storage.objects.setObjectAsync(`${PREFIX}obj.folder`, {
            type: 'folder',
            common: { name: 'later' },
            native: {},
            ts: Date.now() + 1,
        } as ioBroker.Object);
        const again = await events(one, `objects=${encodeURIComponent(pattern)}`, { 'Last-Event-ID': seen.id! });
        t.equal((await again.nextEvent()).event, 'overflow');
        const caught = [data(await again.nextEvent()), data(await again.nextEvent())];
        t.same(
            caught.map(e => e.id),
            [`${PREFIX}obj.first`, `${PREFIX}obj.folder`],
            'oldest first, the last one seen again rather than skipped',
        );
        t.equal(caught[1].obj.type, 'folder');
        again.close();
    },
);

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
    await host.storage.objects.setObjectAsync(secret, {
        ...obj!,
        acl: { owner: 'system.user.admin', ownerGroup: 'system.group.administrator', object: 0x600, state: 0x600 },
    } as ioBroker.Object);
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
    const ids: string[] = [];
    for (;;) {
        const next = await resumed.nextEvent();
        t.not(next.event, 'overflow', 'what it may not read never reached its channel: nothing was lost');
        const body = data(next);
        ids.push(body.id);
        if (body.id === `${PREFIX}.a` && body.state.val === 101) {
            break;
        }
    }
    t.notOk(ids.includes(secret), `re-read ids ${ids.join(', ')} leave out the unreadable state`);
    again.close();
    resumed.close();
});

t.test(
    'a logged event the caller may no longer read is not replayed: an overflow says something is missing',
    async t => {
        const watcherZero = await host.app({ auth: true });
        const watcherOne = await host.app({ auth: true }, 'rest-api.1');
        t.teardown(async () => {
            await watcherZero.close();
            await watcherOne.close();
        });
        urls.set(watcherZero, await watcherZero.serve());
        urls.set(watcherOne, await watcherOne.serve());
        await createUser(host.storage, 'revoked', { state: { read: true }, object: { read: true } }, 'pw');
        const auth = basic('revoked', 'pw');
        const sse = await events(watcherZero, `pattern=${PREFIX}.c`, auth);
        await write(`${PREFIX}.c`, 300);
        const seen = await sse.nextEvent();
        sse.close();
        await write(`${PREFIX}.c`, 301);
        await new Promise(r => setTimeout(r, 800));
        // logged while the user could read it; then the state becomes the administrator's alone
        const obj = await host.storage.objects.getObjectAsync(`${PREFIX}.c`);
        await host.storage.objects.setObjectAsync(`${PREFIX}.c`, {
            ...obj!,
            acl: { owner: 'system.user.admin', ownerGroup: 'system.group.administrator', object: 0x600, state: 0x600 },
        } as ioBroker.Object);
        await new Promise(r => setTimeout(r, 200));
        const resumed = await events(watcherOne, `pattern=${PREFIX}.c`, { ...auth, 'Last-Event-ID': seen.id! });
        t.equal((await resumed.nextEvent()).event, 'overflow', 'the refused event is reported as missing');
        await write(`${PREFIX}.a`, 302);
        const next = await Promise.race([
            resumed.nextEvent().then(e => e.data ?? ''),
            new Promise<string>(r => setTimeout(() => r('nothing'), 1000)),
        ]);
        t.notOk(next.includes('"val":301'), `the value it may no longer read is not sent (${next})`);
        resumed.close();
        await host.storage.objects.setObjectAsync(`${PREFIX}.c`, obj!);
    },
);

t.test(
    'replayed from the channel in memory, an event the caller may no longer read is left out, with an overflow',
    async t => {
        const app = await host.app({ auth: true });
        t.teardown(() => app.close());
        urls.set(app, await app.serve());
        await createUser(host.storage, 'memory', { state: { read: true }, object: { read: true } }, 'pw');
        const auth = basic('memory', 'pw');
        const id = `${PREFIX}.b`;
        const sse = await events(app, `pattern=${id}`, auth);
        await write(id, 400);
        const seen = await sse.nextEvent();
        sse.close();
        // delivered to the channel (kept for its grace period) while the user could read it
        await write(id, 401);
        await new Promise(r => setTimeout(r, 200));
        const obj = await host.storage.objects.getObjectAsync(id);
        await host.storage.objects.setObjectAsync(id, {
            ...obj!,
            acl: { owner: 'system.user.admin', ownerGroup: 'system.group.administrator', object: 0x600, state: 0x600 },
        } as ioBroker.Object);
        t.teardown(() => host.storage.objects.setObjectAsync(id, obj));
        await new Promise(r => setTimeout(r, 200));
        const resumed = await events(app, `pattern=${id}`, { ...auth, 'Last-Event-ID': seen.id! });
        t.equal(resumed.status, 200);
        const first: SseEvent = await resumed.nextEvent(2000).catch(() => ({ data: 'nothing' }));
        t.equal(first.event, 'overflow', 'the refused event is reported as missing');
        t.notOk(
            (first.data ?? '').includes('"val":401'),
            `the value it may no longer read is not sent (${first.data})`,
        );
        resumed.close();
    },
);

/** Every resume-log record of these origins in the states database: count and sizes (JSON bytes). */
async function logRecords(origins: Iterable<string>): Promise<number[]> {
    const sizes: number[] = [];
    for (const origin of new Set(origins)) {
        const value = await new Promise<unknown>(resolve =>
            host.storage.states.getSession(`rest-api-sse:${origin}`, resolve),
        );
        if (value) {
            sizes.push(Buffer.byteLength(JSON.stringify(value)));
        }
    }
    return sizes;
}
const originOf = (event: SseEvent) => event.id!.split('.')[0];
const MB_VALUE = 'x'.repeat(1_000_000);

t.test('an event larger than the log record is recorded as too large: a resume gets an overflow for it', async t => {
    const id = `${PREFIX}.big`;
    await createState(host.storage, id, { type: 'string' }, '');
    const sse = await events(zero, `pattern=${id}`);
    await host.storage.states.setStateAsync(id, { val: 'small', ack: true });
    const seen = await sse.nextEvent();
    sse.close();
    await host.storage.states.setStateAsync(id, { val: MB_VALUE, ack: true });
    await new Promise(r => setTimeout(r, 800));
    const sizes = await logRecords([originOf(seen)]);
    t.equal(sizes.length, 1, 'the channel has its record');
    t.ok(sizes[0] <= 64 * 1024, `the record holds at most 64 KB (${sizes[0]} bytes)`);
    const again = await events(one, `pattern=${id}`, { 'Last-Event-ID': seen.id! });
    t.equal((await again.nextEvent()).event, 'overflow', 'the event the log could not hold is reported missing');
    const reread = data(await again.nextEvent());
    t.equal(reread.state?.val?.length, MB_VALUE.length, 'and the current value is re-read');
    again.close();
});

t.test(
    'records of ended streams are bounded per user: 10 streams on 10 patterns, a 1 MB value, three times',
    async t => {
        const app = await host.app({ auth: true });
        t.teardown(() => app.close());
        urls.set(app, await app.serve());
        await createUser(host.storage, 'bulk', { state: { read: true }, object: { read: true } }, 'pw');
        const auth = basic('bulk', 'pw');
        const id = `${PREFIX}.big`;
        const origins: string[] = [];
        for (let round = 0; round < 3; round++) {
            // new patterns each round: new channels, the idle ones of the round before give way and end
            const streams = [];
            for (let i = 0; i < 10; i++) {
                streams.push(await events(app, `pattern=${id},${PREFIX}.r${round}s${i}`, auth));
            }
            await host.storage.states.setStateAsync(id, { val: `${round}${MB_VALUE}`, ack: true });
            for (const stream of streams) {
                origins.push(originOf(await stream.nextEvent(10_000)));
                stream.close();
            }
        }
        await new Promise(r => setTimeout(r, 1500));
        const sizes = await logRecords(origins);
        const total = sizes.reduce((sum, size) => sum + size, 0);
        t.comment(`${origins.length} channels left ${sizes.length} records of ${total} bytes in all`);
        t.ok(
            sizes.every(size => size <= 64 * 1024),
            `each record at most 64 KB (largest ${Math.max(...sizes)})`,
        );
        t.ok(sizes.length <= 20, `the 10 idle channels and at most 10 ended ones keep a record (${sizes.length})`);
        t.ok(total <= 10 * 64 * 1024 + 640 * 1024, `within the per-user bounds (${total} bytes)`);
    },
);
