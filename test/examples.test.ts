/*
 * The examples/ folder run for real: the Node clients as child processes and the browser page in
 * headless Chromium, all against the real-storage fixture.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import t from 'tap';
import type { Browser } from 'playwright-core';
import { PROJECT_ROOT } from '../scripts/embedded-storage';
import { stopProcess } from '../scripts/stop-process';
import { launchChromium } from './support/browser';
import { startIobroker, type IobFixture } from './support/iobroker';
import { freePort } from './support/ports';
import { checkedFetch } from './support/response-check';

const EXAMPLES = join(PROJECT_ROOT, 'examples');

interface Example {
    child: ChildProcess;
    /** stdout as parsed JSON lines (the examples print one event per line). */
    events(): Array<{ id: string; state: { val: unknown } }>;
    stderr(): string;
    /** Waits until `check` holds; on timeout throws with everything the example said. */
    until(check: () => boolean, what: string, ms?: number): Promise<void>;
    /** The exit code; throws with the output when the example still runs after `ms`. */
    exited(ms?: number): Promise<number | null>;
}

const running: ChildProcess[] = [];

function runExample(file: string, args: string[]): Example {
    const child = spawn(process.execPath, [join(EXAMPLES, file), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    running.push(child);
    let out = '';
    let err = '';
    child.stdout!.on('data', d => (out += d));
    child.stderr!.on('data', d => (err += d));
    const exit = new Promise<number | null>(resolve => child.once('exit', code => resolve(code)));
    const events = () =>
        out
            .split('\n')
            .filter(Boolean)
            .map(line => JSON.parse(line));
    return {
        child,
        events,
        stderr: () => err,
        async until(check, what, ms = 15_000) {
            const end = Date.now() + ms;
            while (!check()) {
                if (Date.now() > end || child.exitCode !== null) {
                    throw new Error(`${file}: no ${what} (exit ${child.exitCode})\nstdout:\n${out}\nstderr:\n${err}`);
                }
                await new Promise(r => setTimeout(r, 50));
            }
        },
        async exited(ms = 15_000) {
            let timer: NodeJS.Timeout | undefined;
            const late = new Promise<never>((_, reject) => {
                timer = setTimeout(() => reject(new Error(`${file} still runs after ${ms} ms\nstdout:\n${out}\nstderr:\n${err}`)), ms);
            });
            try {
                return await Promise.race([exit, late]);
            } finally {
                clearTimeout(timer);
            }
        },
    };
}

/** Serves the page from an origin of its own, as a user would open it: the adapter serves no examples. */
function servePage(): Promise<Server> {
    const html = readFileSync(join(EXAMPLES, 'long-polling.html'));
    const server = createServer((req, res) => {
        if (req.url?.startsWith('/long-polling.html')) {
            res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(html);
        } else {
            res.writeHead(404).end();
        }
    });
    return new Promise(resolve => server.listen(0, '127.0.0.1', () => resolve(server)));
}

let iob: IobFixture;
let pageServer: Server;
let pageOrigin = '';

t.before(async () => {
    pageServer = await servePage();
    pageOrigin = `http://127.0.0.1:${(pageServer.address() as { port: number }).port}`;
    // CORS allows just the page's origin, as a careful setup would
    iob = await startIobroker({ native: { corsOrigins: pageOrigin, checkInterval: 0 } });
    for (const id of ['ex_poll1', 'ex_poll2', 'ex_other', 'ex_flood', 'ex_mark', 'ex_hook1', 'ex_page1']) {
        await iob.createState(`0_userdata.0.${id}`, { type: 'mixed' }, 0);
    }
});
t.teardown(async () => {
    await Promise.all(running.map(child => stopProcess(child, 'SIGKILL')));
    await iob?.stop();
    pageServer?.close();
});

const write = (id: string, val: ioBroker.StateValue) => iob.storage.states.setStateAsync(`0_userdata.0.${id}`, { val, ack: true, from: 'system.adapter.test.0' });
const vals = (example: Example) => example.events().map(e => [e.id.replace('0_userdata.0.', ''), e.state.val]);

/** A session's listing without a pattern: emptied, or gone with its last subscription (a poll still waiting keeps it). */
function noSubscription(answer: { status: number; json: any }): boolean {
    return answer.status === 404 || (answer.status === 200 && answer.json?.states?.length === 0);
}

t.test('long-polling client: prints the events of its pattern, stops after --count and unsubscribes', async t => {
    const client = runExample('long-polling-client.js', ['--url', iob.baseUrl, '--pattern', '0_userdata.0.ex_poll*', '--count', '3', '--sid', 'ex-count']);
    await client.until(() => client.stderr().includes('subscribed to 0_userdata.0.ex_poll*'), 'subscription');
    await write('ex_other', 'not subscribed');
    await write('ex_poll1', 1);
    await write('ex_poll2', 'two');
    await write('ex_poll1', true);
    t.equal(await client.exited(), 0, 'exits by itself with 0');
    t.same(vals(client), [['ex_poll1', 1], ['ex_poll2', 'two'], ['ex_poll1', true]], 'the three events in order, nothing else');
    t.match(client.events()[0], { state: { ack: true, from: 'system.adapter.test.0' } }, 'whole states are printed');
    t.match(client.stderr(), /stopped/, 'says so on stderr');
    const list = await iob.request('/v1/states/subscribe?sid=ex-count&method=polling');
    t.ok(noSubscription(list), 'the subscription is gone');
});

t.test('long-polling client: Ctrl-C ends it cleanly', async t => {
    const client = runExample('long-polling-client.js', ['--url', iob.baseUrl, '--pattern', '0_userdata.0.ex_poll*', '--sid', 'ex-sigint']);
    await client.until(() => client.stderr().includes('subscribed'), 'subscription');
    const listed = await iob.request('/v1/states/subscribe?sid=ex-sigint&method=polling');
    t.same(listed.json, { states: ['0_userdata.0.ex_poll*'] }, 'subscribed while it runs');
    // the client now waits in a poll; SIGINT has to abort it
    await new Promise(r => setTimeout(r, 200));
    const started = Date.now();
    client.child.kill('SIGINT');
    t.equal(await client.exited(), 0, 'exit code 0');
    t.ok(Date.now() - started < 10_000, 'without waiting for the 30 s poll timeout');
    t.ok(noSubscription(await iob.request('/v1/states/subscribe?sid=ex-sigint&method=polling')), 'unsubscribed on the way out');
});

t.test('long-polling client: reports an overflow of its session, then goes on', async t => {
    // a session that filled up while nobody polled it; the client then takes it over by its sid
    await iob.request('/v1/polling?sid=ex-full&connect');
    await iob.request('/v1/states/subscribe?sid=ex-full', { method: 'POST', body: { method: 'polling', pattern: '0_userdata.0.ex_flood' } });
    await iob.request('/v1/polling?sid=ex-mark&connect');
    await iob.request('/v1/states/subscribe?sid=ex-mark', { method: 'POST', body: { method: 'polling', pattern: '0_userdata.0.ex_mark' } });
    // batches of parallel writes: one connection to the states DB keeps them in order
    for (let i = 1; i <= 1003; i += 100) {
        await Promise.all(Array.from({ length: Math.min(100, 1004 - i) }, (_, k) => write('ex_flood', i + k)));
    }
    // events arrive in write order, so once the marker is there, all 1003 are queued
    await write('ex_mark', 1);
    t.match(JSON.parse((await iob.request('/v1/polling?sid=ex-mark')).text), { id: '0_userdata.0.ex_mark' }, 'the marker arrived');
    const client = runExample('long-polling-client.js', ['--url', iob.baseUrl, '--pattern', '0_userdata.0.ex_flood', '--sid', 'ex-full', '--count', '2']);
    t.equal(await client.exited(), 0, 'exit code 0');
    t.match(client.stderr(), /overflow: 3 events were dropped/, 'the overflow is reported');
    t.same(vals(client), [['ex_flood', 4], ['ex_flood', 5]], 'the oldest kept events follow');
});

t.test('long-polling client: survives an adapter restart ({disconnect:true}) and subscribes again', async t => {
    const client = runExample('long-polling-client.js', ['--url', iob.baseUrl, '--pattern', '0_userdata.0.ex_poll*', '--count', '2', '--pause', '200']);
    await client.until(() => client.stderr().includes('subscribed'), 'subscription');
    // an event proves the client polls; the next poll then waits in the adapter when it stops
    await write('ex_poll1', 'before restart');
    await client.until(() => client.events().length === 1, 'first event');
    await new Promise(r => setTimeout(r, 300));
    await iob.restart();
    await client.until(() => client.stderr().split('subscribed to').length === 3, 'second subscription', 30_000);
    t.match(client.stderr(), /the adapter is stopping; reconnecting in 200 ms/, 'it heard {disconnect:true}');
    await write('ex_poll2', 'after restart');
    t.equal(await client.exited(), 0, 'exit code 0');
    t.same(vals(client), [['ex_poll1', 'before restart'], ['ex_poll2', 'after restart']], 'the events before and after the restart');
});

t.test('webhook receiver: registers itself, prints verified events, refuses forged calls', async t => {
    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    const port = await freePort();
    const hookUrl = `http://127.0.0.1:${port}/hook`;
    const receiver = runExample('webhook-receiver.js', ['--port', String(port), '--host', '127.0.0.1', '--secret', secret, '--adapter', iob.baseUrl, '--pattern', '0_userdata.0.ex_hook*']);
    await receiver.until(() => receiver.stderr().includes('registered'), 'registration');
    t.match(receiver.stderr(), /validation call from the adapter answered/, 'the signed {test:true} passed the check');
    t.same((await iob.request(`/v1/states/subscribe?url=${encodeURIComponent(hookUrl)}`)).json, { states: ['0_userdata.0.ex_hook*'] }, 'the adapter lists the hook');

    await write('ex_other', 'not subscribed');
    await write('ex_hook1', 10);
    await write('ex_hook1', 'eleven');
    await receiver.until(() => receiver.events().length >= 2, 'events');
    t.same(vals(receiver), [['ex_hook1', 10], ['ex_hook1', 'eleven']], 'verified events printed in order');

    const body = JSON.stringify({ id: '0_userdata.0.ex_hook1', state: { val: 'forged', ack: true } });
    const signed = (key: string, id: string, timestamp: number, payload = body): Record<string, string> => ({
        'webhook-id': id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': `v1,${createHmac('sha256', Buffer.from(key.slice(6), 'base64')).update(`${id}.${timestamp}.${payload}`).digest('base64')}`,
    });
    const post = (headers: Record<string, string>, payload = body) => checkedFetch(hookUrl, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: payload });
    const now = Math.floor(Date.now() / 1000);
    const wrongKey = `whsec_${randomBytes(24).toString('base64')}`;
    t.equal((await post(signed(wrongKey, 'msg_forged', now))).status, 401, 'signed with another secret');
    t.equal((await post({})).status, 401, 'unsigned');
    t.equal((await post(signed(secret, 'msg_old', now - 600))).status, 401, 'a valid signature ten minutes old');
    t.equal((await post(signed(secret, 'msg_tampered', now), body.replace('forged', 'tampered'))).status, 401, 'body changed after signing');
    t.match(receiver.stderr(), /wrong signature[\s\S]*unsigned call[\s\S]*timestamp outside the tolerance[\s\S]*wrong signature/, 'each refusal is logged with its reason');

    // the right secret over the sent body is accepted: the 401s above came from the checks
    const good = JSON.stringify({ id: '0_userdata.0.ex_hook1', state: { val: 'by the test' } });
    t.equal((await post(signed(secret, 'msg_test', now, good), good)).status, 204, 'a genuine call is accepted');
    t.equal((await post(signed(secret, 'msg_test', now, good), good)).status, 204, 'a replay is answered');
    await receiver.until(() => receiver.events().length >= 3, 'the accepted call');
    await new Promise(r => setTimeout(r, 200));
    t.same(vals(receiver).slice(2), [['ex_hook1', 'by the test']], 'printed once; nothing forged printed');

    receiver.child.kill('SIGINT');
    t.equal(await receiver.exited(), 0, 'Ctrl-C: exit code 0');
    t.match(receiver.stderr(), /stopped/, 'says so on stderr');
    t.equal((await iob.request(`/v1/states/subscribe?url=${encodeURIComponent(hookUrl)}`)).status, 404, 'unregistered on the way out');
});

t.test('webhook receiver: registers again after {disconnect:true} when no call follows (a hook lost in the upgrade from 4.0.2)', async t => {
    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    const port = await freePort();
    const hookUrl = `http://127.0.0.1:${port}/hook`;
    const listed = async () => (await iob.request(`/v1/states/subscribe?url=${encodeURIComponent(hookUrl)}`)).status;
    const receiver = runExample('webhook-receiver.js', ['--port', String(port), '--host', '127.0.0.1', '--secret', secret, '--adapter', iob.baseUrl, '--pattern', '0_userdata.0.ex_hook*', '--rejoin-after', '1']);
    await receiver.until(() => receiver.stderr().includes('registered'), 'registration');
    // as after an upgrade from 4.0.2: the adapter said it stops, and the new one has no hook for this URL
    t.equal((await iob.request('/v1/states/subscribe', { method: 'DELETE', body: { url: hookUrl } })).status, 200, 'the hook is gone');
    t.equal(await listed(), 404, 'the adapter lists no hook for the URL');
    const disconnect = JSON.stringify({ disconnect: true });
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = createHmac('sha256', Buffer.from(secret.slice(6), 'base64')).update(`msg_stop.${timestamp}.${disconnect}`).digest('base64');
    const headers = { 'Content-Type': 'application/json', 'webhook-id': 'msg_stop', 'webhook-timestamp': String(timestamp), 'webhook-signature': `v1,${signature}` };
    t.equal((await checkedFetch(hookUrl, { method: 'POST', headers, body: disconnect })).status, 204, 'the disconnect call is answered');
    await receiver.until(() => receiver.stderr().includes('registered again'), 'registering again', 20_000);
    t.equal(await listed(), 200, 'the adapter lists the hook again');
    await write('ex_hook1', 'after the rejoin');
    await receiver.until(() => vals(receiver).some(([, val]) => val === 'after the rejoin'), 'an event after the rejoin');
    t.pass('events arrive again');
});

t.test('long-polling page in Chromium: shows a written state in its list', async t => {
    const launched = await launchChromium();
    if (!launched.browser) {
        return t.plan(0, launched.skip);
    }
    const browser: Browser = launched.browser;
    t.teardown(() => browser.close());
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', err => errors.push(err.message));
    await page.goto(`${pageOrigin}/long-polling.html?api=${encodeURIComponent(iob.baseUrl)}&pattern=${encodeURIComponent('0_userdata.0.ex_page*')}`);
    t.equal(await page.inputValue('input[name=api]'), iob.baseUrl, 'the API from ?api=');
    await page.click('#start');
    await page.locator('#status', { hasText: 'subscribed to 0_userdata.0.ex_page*' }).waitFor({ timeout: 10_000 });
    await write('ex_other', 'not subscribed');
    await write('ex_page1', 'seen in the page');
    const item = page.locator('#events li').first();
    await item.waitFor({ timeout: 10_000 });
    t.match(await item.innerText(), /^0_userdata\.0\.ex_page1 = "seen in the page" .* ack$/, 'id, value, time and ack');
    await write('ex_page1', 42);
    await page.locator('#events li', { hasText: '= 42' }).waitFor({ timeout: 10_000 });
    const items = await page.locator('#events li').allInnerTexts();
    t.equal(items.length, 2, 'nothing outside the pattern');
    t.match(items, [/^0_userdata\.0\.ex_page1 = 42 /, /^0_userdata\.0\.ex_page1 = "seen in the page" /], 'newest first');
    await page.click('#stop');
    await page.locator('#status', { hasText: 'stopped' }).waitFor({ timeout: 5000 });
    t.same(errors, [], 'no script errors');
});
