/*
 * Pure logic: a hook's send() never throws in the caller's turn. On unload the registry sends
 * {disconnect:true} to every hook in turn and catches rejections; a hook whose stored URL does not
 * parse, or whose target the policy now refuses, threw there before and left the hooks after it
 * without their last message and their subscriptions held.
 */
import t from 'tap';
import { Hook, type HookSettings } from '../../src/events/hooks';

const feed = { listen: async () => async () => undefined };
const settings = (loopback: boolean): HookSettings => ({ hookTimeout: 1000, targets: { loopback, linkLocal: false, option: 'hooksAllowLoopback' }, maxFailures: 3, retryBaseMs: 50 });
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
