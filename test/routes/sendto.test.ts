import t from 'tap';
import { fakeInstance, type FakeInstance } from '../support/fake-instance';
import { startInProcess, type InProcessHost } from '../support/in-process';
import { appFixture, type AppFixture } from '../support/in-process-fixture';

let host: InProcessHost;
let iob: AppFixture;
let limited: AppFixture;
let echo: FakeInstance;

const REPLIES: Record<string, unknown> = {
    silent: undefined,
    fail: { error: 'broken' },
    text: { result: 'hello <b>' },
    page: { result: '<script>alert(document.domain)</script>' },
    object: { result: { a: 1 } },
};

t.before(async () => {
    host = await startInProcess();
    iob = await appFixture(host);
    echo = await fakeInstance(iob, 'echo.0', (command, message) => (command in REPLIES ? REPLIES[command] : { command, message }));
    limited = await appFixture(host, { defaultUser: 'limited' });
    await limited.createUser('limited', { other: { sendto: false } });
});
t.teardown(async () => {
    await echo?.close();
    await iob?.close();
    await limited?.close();
    await host?.stop();
});

const q = (value: unknown): string => encodeURIComponent(JSON.stringify(value));

async function received(command: string): Promise<unknown> {
    for (let i = 0; i < 50; i++) {
        const found = echo.received.find(m => m.command === command);
        if (found) {
            return found.message;
        }
        await new Promise(r => setTimeout(r, 20));
    }
    return undefined;
}

t.test('GET answers the reply; data from the query is converted as in 4.0.2', async t => {
    let res = await iob.request(`/v1/sendto/echo.0?message=ping&data=${q({ a: [1] })}`);
    t.equal(res.status, 200);
    t.same(res.json, { command: 'ping', message: { a: [1] } });
    for (const [text, value] of [['5', 5], ['true', true], ['null', null], ['some text', 'some text'], ['{broken', '{broken'], ['[1,2]', [1, 2]]] as const) {
        res = await iob.request(`/v1/sendto/system.adapter.echo.0?message=conv&data=${encodeURIComponent(text)}`);
        t.same(res.json, { command: 'conv', message: value }, text);
    }
    res = await iob.request('/v1/sendto/echo.0?message=ping');
    t.same(res.json, { command: 'send', message: 'ping' }, 'without data js-controller sends the command "send"');
});

t.test('POST: the body wins and keeps its JSON types', async t => {
    let res = await iob.request('/v1/sendto/echo.0?message=fromQuery', { method: 'POST', body: { message: 'fromBody', data: { x: true } } });
    t.same(res.json, { command: 'fromBody', message: { x: true } });
    res = await iob.request('/v1/sendto/echo.0?message=fromQuery&data=1', { method: 'POST', body: { data: '5' } });
    t.same(res.json, { command: 'fromQuery', message: '5' }, 'a string stays a string');
});

t.test('noResponse: sent without waiting, as text or JSON boolean', async t => {
    let res = await iob.request('/v1/sendto/echo.0?message=fireGet&data=1&noResponse=true');
    t.equal(res.status, 200);
    t.same(res.json, { result: 'sent' });
    t.equal(await received('fireGet'), 1);
    res = await iob.request('/v1/sendto/echo.0', { method: 'POST', body: { message: 'firePost', data: { b: 2 }, noResponse: true } });
    t.same(res.json, { result: 'sent' });
    t.same(await received('firePost'), { b: 2 });
});

t.test('no answer within timeout: 408 {"error":"timeout"}', async t => {
    let res = await iob.request('/v1/sendto/echo.0?message=silent&data=1&timeout=300');
    t.equal(res.status, 408);
    t.same(res.json, { error: 'timeout' });
    res = await iob.request('/v1/sendto/echo.0', { method: 'POST', body: { message: 'silent', data: 1, timeout: 300 } });
    t.equal(res.status, 408);
});

t.test('responseContentType: the result with that type; an error reply is 501', async t => {
    let res = await iob.request(`/v1/sendto/echo.0?message=text&data=1&responseContentType=${encodeURIComponent('text/plain')}`);
    t.equal(res.status, 200);
    t.equal(res.headers['content-type'], 'text/plain');
    t.equal(res.text, 'hello <b>');
    res = await iob.request('/v1/sendto/echo.0', { method: 'POST', body: { message: 'object', data: 1, responseContentType: 'application/x-custom' } });
    t.equal(res.headers['content-type'], 'application/x-custom');
    t.equal(res.text, '{"a":1}');
    res = await iob.request('/v1/sendto/echo.0?message=fail&data=1&responseContentType=text/plain');
    t.equal(res.status, 501);
    t.match(res.json, { error: 'broken' });
    res = await iob.request('/v1/sendto/echo.0?message=fail&data=1');
    t.equal(res.status, 200, 'without responseContentType the reply is answered as it is');
    t.same(res.json, { error: 'broken' });
});

t.test('responseContentType of a page: an instance\'s reply never runs as script of the API\'s origin', async t => {
    let res = await iob.request(`/v1/sendto/echo.0?message=page&data=1&responseContentType=${encodeURIComponent('text/html; charset=utf-8')}`);
    t.equal(res.status, 200);
    t.equal(res.text, '<script>alert(document.domain)</script>', 'the reply as it is');
    t.equal(res.headers['content-security-policy'], 'sandbox', 'but sandboxed');
    res = await iob.request('/v1/sendto/echo.0', { method: 'POST', body: { message: 'object', data: 1, responseContentType: 'image/svg+xml' } });
    t.equal(res.headers['content-security-policy'], 'sandbox', 'a JSON result under an active type too');
    res = await iob.request('/v1/sendto/echo.0?message=text&data=1&responseContentType=text/plain');
    t.equal(res.headers['content-security-policy'], undefined, 'text/plain as before');
    t.equal(res.headers['x-content-type-options'], 'nosniff', 'kept text by nosniff');
});

t.test('errors: no message, unknown or stopped instance, bad names and bodies', async t => {
    let res = await iob.request('/v1/sendto/echo.0?data=1');
    t.equal(res.status, 422);
    t.same(res.json, { error: 'No message provided' });
    res = await iob.request('/v1/sendto/nothing.0?message=x');
    t.equal(res.status, 404);
    t.same(res.json, { error: 'instance not found', instance: 'nothing.0' });
    await echo.setAlive(false);
    res = await iob.request('/v1/sendto/echo.0?message=x');
    t.equal(res.status, 503);
    t.same(res.json, { error: 'instance is not online', instance: 'echo.0' });
    await echo.setAlive(true);
    res = await iob.request('/v1/sendto/echo?message=x');
    t.equal(res.status, 422, 'an instance without number would be a broadcast');
    res = await iob.request('/v1/sendto/echo.0', { method: 'POST', raw: '{"message":', headers: { 'Content-Type': 'application/json' } });
    t.equal(res.status, 400);
    res = await iob.request('/v1/sendto/echo.0', { method: 'POST', body: ['x'] });
    t.equal(res.status, 422);
});

t.test('without other.sendto both methods answer 403', async t => {
    for (const method of ['GET', 'POST']) {
        const res = await limited.request('/v1/sendto/admin.0?message=x', { method, body: method === 'POST' ? { message: 'x' } : undefined });
        t.equal(res.status, 403, method);
        t.same(res.json, { error: 'permissionError' });
    }
});
