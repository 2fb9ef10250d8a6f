/*
 * A hook call's `webhook-id` and its request target, against a receiver on loopback: the id is made
 * of the hook's digest and the event's (each made once), so it must still name one event of one hook,
 * the same on every instance and every retry; the request options kept per hook must still carry
 * the URL's path, query and credentials on every call.
 */
import t, { type Test } from 'tap';
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Hook, type HookSettings } from '../../src/events/hooks';
import { nodeTimers } from '../support/timers';

interface Call {
    url: string;
    headers: IncomingHttpHeaders;
    body: string;
}

const feed = { listen: async () => async () => undefined };
const settings: HookSettings = { hookTimeout: 2000, targets: { loopback: true, linkLocal: false, option: 'hooksAllowLoopback' }, maxFailures: 3, retryBaseMs: 50, timers: nodeTimers };
const hook = (url: string, user = 'system.user.admin', secret?: string) => new Hook(user, url, 'POST', secret, feed, settings, () => undefined);
const state = (val: number): ioBroker.State => ({ val, ack: true, ts: 1000 + val, lc: 1000, from: 'system.adapter.x.0', q: 0 });

async function receiver(t: Test): Promise<{ base: string; calls: Call[] }> {
    const calls: Call[] = [];
    const server = createServer((req, res) => {
        let body = '';
        req.setEncoding('utf8');
        req.on('data', chunk => (body += chunk));
        req.on('end', () => {
            calls.push({ url: req.url!, headers: req.headers, body });
            res.end();
        });
    });
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
    t.teardown(() => server.close());
    return { base: `127.0.0.1:${(server.address() as AddressInfo).port}`, calls };
}

t.test('one id per event and hook, the same from another instance and on a retry', async t => {
    const { base, calls } = await receiver(t);
    const url = `http://${base}/h`;
    const first = state(1);
    await hook(url).send({ id: 'a.b', state: first });
    await hook(url).send({ id: 'a.b', state: first }); // another instance's Hook for the same record
    await hook(url).send({ id: 'a.b', state: { ...first } }); // the same change, another object
    await hook(url).send({ id: 'a.b', state: state(2) });
    await hook(url).send({ id: 'a.c', state: first });
    await hook(`${url}2`).send({ id: 'a.b', state: first });
    await hook(url, 'system.user.other').send({ id: 'a.b', state: first });
    const ids = calls.map(call => String(call.headers['webhook-id']));
    t.equal(ids.length, 7);
    ids.forEach(id => t.match(id, /^msg_[A-Za-z0-9_-]{64}$/));
    t.equal(ids[1], ids[0], 'the same hook and event: the same id');
    t.equal(ids[2], ids[0], 'the same change in another object: the same id');
    t.equal(new Set([ids[0], ids[3], ids[4], ids[5], ids[6]]).size, 5, 'another value, state, URL or user: another id');
});

t.test('notices carry no event id', async t => {
    const { base, calls } = await receiver(t);
    await hook(`http://${base}/h`).send({ disconnect: true });
    t.equal(calls[0].headers['webhook-id'], undefined);
});

t.test('the URL kept per hook still brings path, query and credentials on every call', async t => {
    const { base, calls } = await receiver(t);
    const one = hook(`http://us%40er:p%3Ass@${base}/in/box?token=x%20y`);
    await one.send({ id: 'a.b', state: state(1) });
    await one.send({ id: 'a.b', state: state(2) });
    t.equal(calls.length, 2);
    for (const call of calls) {
        t.equal(call.url, '/in/box?token=x%20y');
        t.equal(call.headers.authorization, `Basic ${Buffer.from('us@er:p:ss').toString('base64')}`);
    }
    t.not(calls[0].headers['webhook-id'], calls[1].headers['webhook-id']);
});

t.test('one state object delivered under two ids in turn: each event its own id, every time', async t => {
    const { base, calls } = await receiver(t);
    const one = hook(`http://${base}/h`);
    const shared = state(5);
    for (let i = 0; i < 2; i++) {
        await one.send({ id: 'x.a', state: shared });
        await one.send({ id: 'x.b', state: shared });
    }
    const ids = calls.map(call => String(call.headers['webhook-id']));
    t.equal(ids[2], ids[0], 'x.a again: its first id');
    t.equal(ids[3], ids[1], 'x.b again: its first id');
    t.not(ids[0], ids[1], 'x.a and x.b differ');
    t.same(calls.map(call => JSON.parse(call.body).id), ['x.a', 'x.b', 'x.a', 'x.b'], 'each body names its own id');
});

t.test('object events and deletions get a fixed id too', async t => {
    const { base, calls } = await receiver(t);
    const one = hook(`http://${base}/h`);
    const obj = { _id: 'x', type: 'state', common: {}, native: {} } as unknown as ioBroker.Object;
    await one.send({ id: 'x', obj });
    await one.send({ id: 'x', obj: { ...obj } } as never);
    await one.send({ id: 'x', state: null });
    await one.send({ id: 'x', state: null });
    const ids = calls.map(call => String(call.headers['webhook-id']));
    t.equal(ids[1], ids[0], 'the same object change');
    t.equal(ids[3], ids[2], 'the same deletion');
    t.not(ids[0], ids[2], 'an object change is not a deletion');
});

t.test('a signed call signs the id and the body it sends', async t => {
    const { base, calls } = await receiver(t);
    const secret = 'hook secret';
    await hook(`http://${base}/h`, 'system.user.admin', secret).send({ id: 'a.b', state: state(7) });
    const [call] = calls;
    const id = String(call.headers['webhook-id']);
    t.match(id, /^msg_[A-Za-z0-9_-]{64}$/);
    const expected = createHmac('sha256', secret).update(`${id}.${call.headers['webhook-timestamp']}.${call.body}`).digest('base64');
    t.equal(call.headers['webhook-signature'], `v1,${expected}`);
});

t.test('credentials that do not decode reject the call, and no call is made', async t => {
    const { base, calls } = await receiver(t);
    await t.rejects(hook(`http://%ff@${base}/h`).send({ id: 'a.b', state: state(1) }));
    t.equal(calls.length, 0);
});
