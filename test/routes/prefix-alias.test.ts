/*
 * One URL in both modes: a standalone server answers every route and command under /rest-api/ (the
 * web-extension path) exactly as at the root, with the same auth, limits, docs page and long polling.
 */
import t from 'tap';
import type { HttpAnswer } from '../support/iobroker';
import { startInProcess, type InProcessHost } from '../support/in-process';
import { appFixture, type AppFixture } from '../support/in-process-fixture';

let host: InProcessHost;
let iob: AppFixture;
const PREFIXES = ['', '/rest-api'];
const ID = '0_userdata.0.alias';

t.before(async () => {
    host = await startInProcess();
    iob = await appFixture(host, { checkInterval: 0 });
    await iob.createState(ID, { type: 'number' }, 7);
});
t.teardown(async () => {
    await iob?.close();
    await host?.stop();
});

/** The parts of an answer a client sees, without the times that differ between two reads; a 404 names the path asked for. */
function seen(res: HttpAnswer): unknown {
    const text = res.text.replace('/rest-api/', '/');
    const json = res.json === undefined ? undefined : JSON.parse(text);
    const body = json && typeof json === 'object' && !Array.isArray(json) ? { ...json, ts: undefined, lc: undefined } : text;
    return { status: res.status, type: res.headers['content-type'], body };
}

t.test('routes and a command answer the same under both prefixes', async t => {
    const paths = [
        `/v1/state/${ID}`,
        `/v1/state/${ID}/plain`,
        `/v1/state/${ID}/plain?extraPlain=true`,
        `/v1/object/${ID}`,
        `/v1/states?filter=${ID}`,
        '/v1/command/getState?id=' + ID,
        '/v1/state/0_userdata.0.missing',
        '/v1/command/noSuchCommand',
        '/v1/no/such/route',
        '/name',
    ];
    for (const path of paths) {
        const [root, alias] = [await iob.request(path), await iob.request(`/rest-api${path}`)];
        t.same(seen(alias), seen(root), path);
    }
    const plain = await iob.request(`/rest-api/v1/state/${ID}/plain`);
    t.equal(plain.status, 200);
    t.equal(plain.text, '7', 'the value itself, not only an equal error');
});

t.test('writes and methods: PATCH, GET write, POST command, 405 with Allow', async t => {
    let res = await iob.request(`/rest-api/v1/state/${ID}`, { method: 'PATCH', body: { val: 11 } });
    t.equal(res.status, 200);
    t.equal((await iob.storage.states.getStateAsync(ID)).val, 11, 'stored');
    res = await iob.request(`/rest-api/v1/state/${ID}?value=12`);
    t.match(res.json, { val: 12, id: ID });
    res = await iob.request('/rest-api/v1/command/getState', { method: 'POST', body: { id: ID } });
    t.match(res.json, { error: null, result: { val: 12 } });
    for (const prefix of PREFIXES) {
        res = await iob.request(`${prefix}/v1/state/${ID}/plain`, { method: 'DELETE' });
        t.equal(res.status, 405, `${prefix || 'root'}: 405`);
        t.match(res.headers.allow, /GET/);
    }
    res = await iob.request('/rest-api/v1/command/getState?id=', {});
    t.equal(res.status, 422, 'a bad parameter is the same 422');
});

t.test('the docs page opens at /rest-api/ and loads its assets and document under the prefix', async t => {
    let res = await iob.request('/rest-api/');
    t.equal(res.status, 302);
    t.equal(res.headers.location, '/rest-api/api-doc/');
    res = await iob.request('/rest-api');
    t.equal(res.headers.location, '/rest-api/api-doc/', 'without the trailing slash too');
    res = await iob.request('/rest-api/api-doc/');
    t.equal(res.status, 200);
    // the page names its assets relatively: resolved as the browser does, they stay under the prefix
    const bundle = /src="([^"]*swagger-ui-bundle\.js)"/.exec(res.text)?.[1] ?? '';
    const bundlePath = new URL(bundle, 'http://host/rest-api/api-doc/').pathname;
    t.match(bundlePath, /^\/rest-api\/api-doc\/.*swagger-ui-bundle\.js$/);
    res = await iob.request(bundlePath);
    t.equal(res.status, 200);
    res = await iob.request('/');
    t.equal(res.headers.location, '/api-doc/', 'the root page stays at the root');
    res = await iob.request('/rest-api/api-docs/openapi.json');
    t.equal(res.status, 200);
    t.equal(res.json.servers.length, 1, 'one server entry');
    t.equal(res.json.servers[0].url, '/');
    t.match(res.json.servers[0].description, /\/rest-api\//, 'it names the alias');
    t.notOk(Object.keys(res.json.paths).some(p => p.startsWith('/rest-api')), 'no second list of paths');
});

t.test('a long poll under the prefix receives an event', async t => {
    let res = await iob.request('/rest-api/v1/polling?sid=alias&connect&timeout=1000');
    t.equal(res.text, '_');
    res = await iob.request(`/rest-api/v1/state/${ID}/subscribe?sid=alias&method=polling`);
    t.equal(res.status, 200);
    const poll = iob.request('/rest-api/v1/polling?sid=alias');
    await new Promise(r => setTimeout(r, 100));
    await iob.storage.states.setStateAsync(ID, { val: 99, ack: true, from: 'system.adapter.test.0' });
    res = await poll;
    t.equal(res.status, 200);
    t.match(JSON.parse(res.text), { id: ID, state: { val: 99 } });
});

t.test('with auth on: the same 401 under both prefixes, and credentials work under both', async t => {
    await iob.restart({ auth: true });
    t.teardown(() => iob.restart({ auth: false }));
    const basic = { Authorization: `Basic ${Buffer.from('admin:iobroker').toString('base64')}` };
    for (const path of [`/v1/state/${ID}`, '/v1/command/getState?id=' + ID, '/v1/no/such/route', '/v1/command/noSuchCommand']) {
        const [root, alias] = [await iob.request(path), await iob.request(`/rest-api${path}`)];
        t.equal(alias.status, 401, `${path}: 401 under the prefix`);
        t.same(seen(alias), seen(root), `${path}: the same answer`);
    }
    for (const prefix of PREFIXES) {
        const res = await iob.request(`${prefix}/v1/state/${ID}`, { headers: basic });
        t.equal(res.status, 200, `${prefix || 'root'}: with credentials`);
    }
});
