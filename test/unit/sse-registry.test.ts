import t from 'tap';
import { DISCONNECT_FRAME } from '../../src/events/sse-channel';
import { SseRegistry } from '../../src/events/sse';
import { HttpError } from '../../src/http/http-error';
import { ChangeFeed } from '../../src/storage/change-feed';
import { nodeTimers } from '../support/timers';

// pure logic: a feed whose js-controller side does nothing
const port = {
    subscribeForeignStatesAsync: async () => undefined,
    unsubscribeForeignStatesAsync: async () => undefined,
    subscribeForeignObjectsAsync: async () => undefined,
    unsubscribeForeignObjectsAsync: async () => undefined,
};
const limits = { streamsPerUser: 2, streamsTotal: 3, replaySize: 3, graceMs: 30 };
const options = { heartbeatMs: 60_000 };
const patterns = (...states: string[]) => ({ states, objects: [] });
const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms));

function writer(aborted = false) {
    const controller = new AbortController();
    if (aborted) {
        controller.abort();
    }
    const out = {
        chunks: [] as string[],
        ended: false,
        write: (chunk: string) => void out.chunks.push(chunk),
        end: (chunk?: string) => {
            out.chunks.push(chunk ?? '');
            out.ended = true;
        },
        buffered: () => 0,
        drained: () => Promise.resolve(),
        signal: controller.signal,
        abort: () => controller.abort(),
    };
    return out;
}

t.test('a channel stays subscribed for the grace period after its last stream, then releases', async t => {
    const feed = new ChangeFeed(port);
    const registry = new SseRegistry(() => feed, nodeTimers, limits);
    const out = writer();
    (await registry.open('u', patterns('a.*'), options))(out);
    out.abort();
    t.equal(registry.streamCount(), 0);
    t.equal(feed.count('state'), 1, 'kept for a resume');
    await sleep(60);
    t.equal(feed.count('state'), 0, 'released after the grace period');
});

t.test('streams are capped per user; idle channels give way to new ones', async t => {
    const feed = new ChangeFeed(port);
    const registry = new SseRegistry(() => feed, nodeTimers, limits);
    const a = writer();
    (await registry.open('u', patterns('a'), options))(a);
    (await registry.open('u', patterns('b'), options))(writer());
    await t.rejects(registry.open('u', patterns('c'), options), new HttpError('TOO_MANY_REQUESTS', 'Too many event streams'));
    (await registry.open('v', patterns('c'), options))(writer());
    await t.rejects(registry.open('w', patterns('d'), options), new HttpError('TOO_MANY_REQUESTS', 'Too many event streams'), 'the total limit');
    a.abort();
    (await registry.open('u', patterns('c'), options))(writer());
    t.equal(registry.streamCount('u'), 2);
    t.equal(feed.count('state'), 2, 'the idle channel of a was dropped');
    await registry.close();
});

t.test('a stream without a body to write to (HEAD) leaves at once', async t => {
    const registry = new SseRegistry(() => new ChangeFeed(port), nodeTimers, limits);
    (await registry.open('u', patterns('a'), options))(writer(true));
    t.equal(registry.streamCount(), 0);
    await registry.close();
});

t.test('close ends every stream with a disconnect event and refuses new ones', async t => {
    const feed = new ChangeFeed(port);
    const registry = new SseRegistry(() => feed, nodeTimers, limits);
    const out = writer();
    (await registry.open('u', patterns('a'), options))(out);
    feed.emit('state', 'a', { val: 1, ack: true, ts: 1, lc: 1, from: 'x', q: 0 });
    await registry.close();
    t.match(out.chunks[0], /^id: [A-Za-z0-9_-]{8}\.1\.1\ndata: \{"id":"a","state":\{"val":1/);
    t.equal(out.chunks.at(-1), DISCONNECT_FRAME);
    t.ok(out.ended);
    t.equal(feed.count('state'), 0);
    await t.rejects(registry.open('u', patterns('a'), options), new HttpError('UNAVAILABLE', 'The adapter is stopping'));
});
