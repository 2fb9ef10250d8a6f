/*
 * A hook's send() never throws in the caller's turn. On unload the registry sends
 * {disconnect:true} to every hook in turn and catches rejections; a hook whose stored URL does not
 * parse, or whose target the policy now refuses, threw there before and left the hooks after it
 * without their last message and their subscriptions held.
 */
import { lookup } from 'node:dns/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import t from 'tap';
import { deliver } from '../../src/events/hook-delivery';
import { Hook, type HookSettings } from '../../src/events/hooks';
import { guardedLookup } from '../../src/messaging/target-guard';
import { nodeTimers } from '../support/timers';

const feed = { listen: async () => async () => undefined };
const settings = (loopback: boolean): HookSettings => ({ hookTimeout: 1000, targets: { loopback, linkLocal: false, option: 'hooksAllowLoopback' }, maxFailures: 3, retryBaseMs: 50, timers: nodeTimers });
const hook = (url: string, loopback = true) => new Hook('system.user.admin', url, 'POST', undefined, feed, settings(loopback), () => undefined);

t.test('a URL that does not parse rejects instead of throwing', async t => {
    let sent: Promise<void> | undefined;
    t.doesNotThrow(() => (sent = hook('not a url').send({ disconnect: true })));
    await t.rejects(sent!, /Invalid URL/);
});

t.test('a target the policy refuses rejects instead of throwing', async t => {
    let sent: Promise<void> | undefined;
    t.doesNotThrow(() => (sent = hook('http://127.0.0.1:9/h', false).send({ disconnect: true })));
    await t.rejects(sent!, /loopback/);
});

t.test('a link-local target written as an IPv4-mapped IPv6 literal is refused on every call', async t => {
    const mapped = hook('http://[::ffff:169.254.169.254]/latest/meta-data');
    await t.rejects(mapped.send({ disconnect: true }), /link-local/);
    await t.rejects(mapped.send({ disconnect: true }), /link-local/, 'the parsed URL kept for the next call is checked again');
});

t.test('every call has a connection of its own, closed after the answer (one agent for all calls, no keep-alive)', async t => {
    const seen: { port: number; connection: string | undefined }[] = [];
    let closed = 0;
    const server = createServer((req, res) => {
        seen.push({ port: req.socket.remotePort!, connection: req.headers.connection });
        req.resume();
        req.on('end', () => res.end());
    });
    server.on('connection', socket => socket.on('close', () => closed++));
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
    t.teardown(() => server.close());
    const target = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/h`);
    const options = { method: 'POST' as const, timeoutMs: 1000, targets: { loopback: true, linkLocal: false, option: 'hooksAllowLoopback' } };
    await deliver(target, '{"a":1}', options);
    await deliver(target, '{"a":2}', options);
    await Promise.all([deliver(target, '{"a":3}', options), deliver(target, '{"a":4}', options)]);
    t.equal(seen.length, 4);
    t.same(
        seen.map(s => s.connection),
        ['close', 'close', 'close', 'close'],
        'each call asks to close its connection',
    );
    t.equal(new Set(seen.map(s => s.port)).size, 4, 'no connection is used twice');
    const end = Date.now() + 2000;
    while (closed < 4 && Date.now() < end) {
        await new Promise(resolve => setTimeout(resolve, 10));
    }
    t.equal(closed, 4, 'every connection is closed after its answer');
});

t.test('the guarded lookup is made once per policy', async t => {
    const policy = { loopback: false, linkLocal: false, option: 'x' };
    t.equal(guardedLookup(policy), guardedLookup(policy));
    t.not(guardedLookup(policy), guardedLookup({ ...policy }), 'another policy has its own');
    const refused = await new Promise<unknown>(resolve => guardedLookup(policy)('localhost', {}, err => resolve(err)));
    t.match(refused, { message: /loopback/ }, 'a name that resolves to this machine is still refused');
});

t.test('through the shared agent, a name that resolves to a refused address is refused at connect time', async t => {
    let hits = 0;
    const server = createServer((_req, res) => {
        hits++;
        res.end();
    });
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
    t.teardown(() => server.close());
    const port = (server.address() as AddressInfo).port;
    // names that resolve to 127.x here, none of them spelled as a loopback name the URL check knows
    const names: string[] = [];
    for (const name of [hostname(), 'localhost.', 'ip6-localhost']) {
        const address = await lookup(name, { family: 4 }).catch(() => undefined);
        if (address && address.address.startsWith('127.')) {
            names.push(name);
        }
    }
    t.ok(names.length, `at least one name resolves to loopback here (${names.join(', ')})`);
    const options = { method: 'POST' as const, timeoutMs: 1000, targets: { loopback: false, linkLocal: false, option: 'hooksAllowLoopback' } };
    for (const name of names) {
        await t.rejects(deliver(new URL(`http://${name}:${port}/h`), '{}', options), /loopback/, name);
    }
    t.equal(hits, 0, 'the server heard nothing');
});
