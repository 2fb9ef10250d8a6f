import { createServer, type Server } from 'node:http';
import t from 'tap';
import { fakeInstance, type FakeInstance } from '../support/fake-instance';
import { createState, createUser } from '../support/iobroker';
import { startInProcess, type InProcessApp, type InProcessHost } from '../support/in-process';
import { captureLog } from '../support/log-capture';
import { checkedFetch } from '../support/response-check';

let host: InProcessHost;
let app: InProcessApp;
let logs: () => string;
/** A fresh app with this config, as a restart of the adapter gave. */
async function configure(native: Record<string, unknown> = {}): Promise<void> {
    await app?.close();
    app = await host.app(native);
}
let echo: FakeInstance;
let history: FakeInstance;
let target: Server;
let targetUrl = '';

t.before(async () => {
    host = await startInProcess();
    logs = captureLog(host.adapter);
    await configure();
    echo = await fakeInstance({ storage: host.storage } as never, 'echo.0', (command, message) => (command === 'silent' ? undefined : { command, message }));
    history = await fakeInstance({ storage: host.storage } as never, 'history.0', (command, message) =>
        command === 'getHistory' ? { result: [{ val: 1, ts: 1000 }, { val: 2, ts: 2000 }], step: 60, sessionId: 7, echo: message } : undefined,
    );
    await createState(host.storage, '0_userdata.0.h', { type: 'number' }, 2);
    target = createServer((req, res) => {
        if (req.url === '/missing') {
            res.writeHead(404).end('no');
        } else if (req.url === '/moved') {
            res.writeHead(302, { Location: '/image' }).end();
        } else {
            res.writeHead(200, { 'Content-Type': 'image/png' }).end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]));
        }
    });
    await new Promise<void>(resolve => target.listen(0, '127.0.0.1', resolve));
    targetUrl = `http://127.0.0.1:${(target.address() as { port: number }).port}`;
});
t.teardown(async () => {
    await echo?.close();
    await history?.close();
    target?.closeAllConnections();
    target?.close();
    await app?.close();
    await host?.stop();
});

const q = (value: unknown): string => encodeURIComponent(JSON.stringify(value));

t.test('sendTo answers the reply of the instance as it is', async t => {
    let res = await app.request(`/v1/command/sendTo?adapterInstance=echo.0&command=ping&message=${q({ a: 1 })}`);
    t.equal(res.status, 200);
    t.same(res.json, { command: 'ping', message: { a: 1 } });
    res = await app.request('/v1/command/sendTo', { method: 'POST', body: { adapterInstance: 'system.adapter.echo.0', command: 'text', message: 'hello' } });
    t.same(res.json, { command: 'text', message: 'hello' });
});

t.test('sendTo errors: timeout, unknown, stopped, malformed instance, missing params', async t => {
    let res = await app.request('/v1/command/sendTo?adapterInstance=echo.0&command=silent&message=x&timeout=300');
    t.equal(res.status, 504);
    t.match(res.json.error, /timeout/);
    res = await app.request('/v1/command/sendTo?adapterInstance=nothing.0&command=x&message=x');
    t.equal(res.status, 404);
    t.same(res.json, { error: 'instance not found', instance: 'nothing.0' });
    await echo.setAlive(false);
    res = await app.request('/v1/command/sendTo?adapterInstance=echo.0&command=x&message=x');
    t.equal(res.status, 503);
    t.equal(res.json.error, 'instance is not online');
    await echo.setAlive(true);
    res = await app.request('/v1/command/sendTo?adapterInstance=echo&command=x&message=x');
    t.equal(res.status, 422, 'an instance without number would be a broadcast that never answers');
    res = await app.request('/v1/command/sendTo?adapterInstance=echo.0');
    t.equal(res.status, 422);
    t.same(res.json.details.map((d: { param: string }) => d.param), ['command', 'message']);
    res = await app.request('/v1/command/sendTo?adapterInstance=echo.0&command=x&message=x&timeout=0');
    t.equal(res.status, 422);
});

t.test('clientSubscribe forwards to the instance', async t => {
    const res = await app.request(`/v1/command/clientSubscribe?targetInstance=echo.0&messageType=updates&data=${q({ x: 1 })}`);
    t.equal(res.status, 200);
    t.match(res.json, { error: null, result: { command: 'clientSubscribe', message: { type: 'updates', data: { x: 1 } } } });
    const bad = await app.request('/v1/command/clientSubscribe?targetInstance=echo.0');
    t.equal(bad.status, 422);
});

t.test('getHistory asks the history instance with the caller and defaults', async t => {
    let res = await app.request(`/v1/command/getHistory?id=0_userdata.0.h&options=${q({ instance: 'history.0', count: 2 })}`);
    t.equal(res.status, 200);
    t.match(res.json, { error: null, results: [[{ val: 1 }, { val: 2 }], 60, 7] });
    const sent = history.received.at(-1)!.message as { id: string; options: Record<string, unknown> };
    t.equal(sent.id, '0_userdata.0.h');
    t.match(sent.options, { count: 2, aggregate: 'none', user: 'system.user.admin', instance: 'history.0' });

    res = await app.request('/v1/command/getHistory?id=0_userdata.0.h');
    t.equal(res.status, 422, 'no data source configured');
    t.equal(res.json.error, 'No dataSource defined!');
    const config = await host.storage.objects.getObjectAsync('system.config');
    config.common.defaultHistory = 'history.0';
    await host.storage.objects.setObjectAsync('system.config', config);
    res = await app.request('/v1/command/getHistory?id=0_userdata.0.h&options=history.0');
    t.equal(res.status, 200, 'the instance may also be given as a string');
    res = await app.request('/v1/command/getHistory?id=0_userdata.0.h');
    t.equal(res.status, 200, 'the system default history is used');
    res = await app.request('/v1/command/getHistory');
    t.equal(res.status, 422);
});

t.test('httpGet refuses local targets unless allowed', async t => {
    let res = await app.request(`/v1/command/httpGet?url=${encodeURIComponent(`${targetUrl}/image`)}`);
    t.equal(res.status, 403);
    t.match(res.json.error, /is this machine \(loopback\); the option httpGetAllowLocal allows it/);
    for (const url of ['http://localhost:1/', 'http://[::1]:1/', 'http://169.254.169.254/latest/meta-data/', 'http://0.0.0.0:1/']) {
        res = await app.request(`/v1/command/httpGet?url=${encodeURIComponent(url)}`);
        t.equal(res.status, 403, url);
    }
    res = await app.request('/v1/command/httpGet?url=not-a-url');
    t.equal(res.status, 422);
    res = await app.request(`/v1/command/httpGet?url=${encodeURIComponent('file:///etc/passwd')}`);
    t.equal(res.status, 422);
    res = await app.request('/v1/command/httpGet');
    t.equal(res.status, 422);
});

t.test('httpGet with local targets allowed: JSON, binary, redirects, errors', async t => {
    await configure({ httpGetAllowLocal: true });
    let res = await app.request(`/v1/command/httpGet?url=${encodeURIComponent(`${targetUrl}/image`)}`);
    t.equal(res.status, 200);
    t.same(res.json.results[0], { status: 200, statusText: 'OK' });
    t.same(res.json.results[1], { type: 'Buffer', data: [0x89, 0x50, 0x4e, 0x47, 1, 2, 3] });
    const raw = await checkedFetch(`${await app.serve()}/v1/command/httpGet?url=${encodeURIComponent(`${targetUrl}/moved`)}&binary=true`);
    t.equal(raw.status, 200);
    t.equal(raw.headers.get('content-type'), 'image/png');
    t.same([...Buffer.from(await raw.arrayBuffer())], [0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
    res = await app.request(`/v1/command/httpGet?url=${encodeURIComponent(`${targetUrl}/missing`)}`);
    t.equal(res.status, 502);
    t.notMatch(res.text, /stack|at .*\.js/, 'no stack trace');
    res = await app.request(`/v1/command/httpGet?url=${encodeURIComponent('http://127.0.0.1:1/')}`);
    t.equal(res.status, 502);
    await configure({ httpGetAllowLocal: false });
});

t.test('log answers OK and writes the log', async t => {
    let res = await app.request('/v1/command/log?text=hello%20from%20a%20test&level=warn');
    t.same(res.json, { result: 'OK' });
    res = await app.request('/v1/command/log', { method: 'POST', body: { text: 'info line' } });
    t.same(res.json, { result: 'OK' });
    for (let i = 0; i < 20 && !logs().includes('hello from a test'); i++) {
        await new Promise(r => setTimeout(r, 50));
    }
    t.match(logs(), /warn.*system\.user\.admin: hello from a test/);
    res = await app.request('/v1/command/log?text=x&level=loud');
    t.equal(res.status, 422);
    res = await app.request('/v1/command/log');
    t.equal(res.status, 422);
});

t.test('checkFeatureSupported', async t => {
    let res = await app.request('/v1/command/checkFeatureSupported?feature=ALIAS');
    t.same(res.json, { error: null, result: true });
    res = await app.request('/v1/command/checkFeatureSupported?feature=PARTIAL_OBJECT_TREE');
    t.same(res.json, { error: null, result: true });
    res = await app.request('/v1/command/checkFeatureSupported?feature=NO_SUCH_FEATURE');
    t.same(res.json, { error: null, result: false });
    res = await app.request('/v1/command/checkFeatureSupported');
    t.equal(res.status, 422);
});

t.test('updateTokenExpiration extends a stored session', async t => {
    const token = 'a'.repeat(40);
    await host.storage.states.setSession(`a:${token}`, 60, { aToken: token, aExp: Date.now() + 60_000, rToken: 'r', rExp: Date.now() + 1e6, user: 'admin' });
    let res = await app.request(`/v1/command/updateTokenExpiration?accessToken=${token}`);
    t.same(res.json, { error: null, result: true });
    const session = await new Promise<{ aExp: number }>(resolve => host.storage.states.getSession(`a:${token}`, resolve));
    t.ok(session.aExp > Date.now() + 3000 * 1000, 'expires after the configured ttl (3600 s)');
    res = await app.request('/v1/command/updateTokenExpiration?accessToken=unknown');
    t.equal(res.status, 404);
    t.same(res.json, { error: 'No access token found', result: false });
    res = await app.request('/v1/command/updateTokenExpiration');
    t.equal(res.status, 422);
});

t.test('a limited user is refused every command that needs a right', async t => {
    const limited = await host.app({ defaultUser: 'nobody' });
    await createUser(host.storage, 'nobody', {});
    const peer = await fakeInstance({ storage: host.storage } as never, 'echo.0', () => ({ ok: true }));
    // the peer first: its client must not outlive the storage it talks to
    t.teardown(async () => {
        await peer.close();
        await limited.close();
    });
    for (const path of [
        '/v1/command/sendTo?adapterInstance=echo.0&command=x&message=x',
        '/v1/command/clientSubscribe?targetInstance=echo.0&messageType=x',
        '/v1/command/getHistory?id=0_userdata.0.h&options=history.0',
        `/v1/command/httpGet?url=${encodeURIComponent('http://example.invalid/')}`,
        '/v1/command/log?text=x',
    ]) {
        const res = await limited.request(path);
        t.equal(res.status, 403, path);
        t.equal(res.json.error, 'permissionError');
    }
    t.equal(peer.received.length, 0, 'no message reached the instance');
    const free = await limited.request('/v1/command/checkFeatureSupported?feature=ALIAS');
    t.equal(free.status, 200, 'commands that reveal nothing need no right');
});
