/*
 * With auth off, any web page the owner visits can send requests to the API. Tried as an attacker's
 * page would: writes a browser sends without a preflight (a JSON body as text/plain, GETs that write,
 * image and link GETs without Origin), and DNS rebinding (our address under the attacker's name).
 * Clients without Origin and Sec-Fetch-Site (curl, integrations) must see no difference.
 * (sendto's responseContentType is checked in test/routes/sendto.test.ts, which has an instance that replies.)
 */
import { hostname } from 'node:os';
import t from 'tap';
import { isActiveContent } from '../../src/http/active-content';
import { isOwnHost, ownHostNames } from '../../src/http/browser-guard';
import { normalizeConfig } from '../../src/instance/config';
import { startInProcess, type InProcessApp, type InProcessHost } from '../support/in-process';
import { createState } from '../support/iobroker';
import { basic } from '../support/raw-request';

const NUM = '0_userdata.0.browser.num';
const BOOL = '0_userdata.0.browser.bool';
const DOOMED = '0_userdata.0.browser.doomed';
const META = 'browser-files.0';
const HOST = '127.0.0.1:8093';
const EVIL = { Origin: 'https://evil.example', Host: HOST, 'Sec-Fetch-Site': 'cross-site' };
// an <img src> or a link: no Origin, only what the browser says about the site
const IMAGE = { Host: HOST, 'Sec-Fetch-Site': 'cross-site' };
const TEXT = { 'Content-Type': 'text/plain' };

let host: InProcessHost;
let open: InProcessApp;
let listed: InProcessApp;
let secured: InProcessApp;

t.before(async () => {
    host = await startInProcess();
    await createState(host.storage, NUM, { type: 'number' }, 1);
    await createState(host.storage, BOOL, { type: 'boolean' }, false);
    await host.storage.objects.setObjectAsync(META, { _id: META, type: 'meta', common: { name: 'browser files', type: 'meta.user' }, native: {} } as ioBroker.Object);
    open = await host.app({ auth: false });
    listed = await host.app({ auth: false, corsOrigins: 'https://dash.example', allowedHosts: ['iobroker.home'] }, 'rest-api.1');
    secured = await host.app({ auth: true }, 'rest-api.2');
});
t.teardown(async () => {
    await open?.close();
    await listed?.close();
    await secured?.close();
    await host?.stop();
});

interface Write {
    name: string;
    path: string;
    method?: string;
    raw?: string;
}

/** Every kind of write a page can send without a preflight, each one changing something we can read back. */
const WRITES: Write[] = [
    { name: 'PATCH with a text/plain JSON body', path: `/v1/state/${NUM}`, method: 'PATCH', raw: '{"val":11}' },
    { name: 'POST of a write command', path: '/v1/command/setState', method: 'POST', raw: JSON.stringify({ id: NUM, state: 12 }) },
    { name: 'PUT of an object', path: `/v1/object/${NUM}`, method: 'PUT', raw: '{"common":{"name":"changed by a page"}}' },
    { name: 'DELETE of an object', path: `/v1/object/${DOOMED}`, method: 'DELETE' },
    { name: 'GET ?value=', path: `/v1/state/${NUM}?value=13` },
    { name: 'GET ?toggle', path: `/v1/state/${BOOL}?toggle` },
    { name: 'GET /toggle', path: `/v1/state/${BOOL}/toggle` },
    { name: 'GET of a write command', path: `/v1/command/setState?id=${NUM}&state=14` },
];

/** What the writes above change, read from the storage itself. */
async function snapshot(): Promise<unknown> {
    const num = await host.storage.states.getStateAsync(NUM);
    const bool = await host.storage.states.getStateAsync(BOOL);
    const obj = await host.storage.objects.getObjectAsync(NUM);
    const doomed = await host.storage.objects.getObjectAsync(DOOMED);
    return { num: num?.val, bool: bool?.val, name: obj?.common.name, doomed: !!doomed };
}

async function send(app: InProcessApp, write: Write, headers: Record<string, string>) {
    // each run starts from the same objects, so each allowed write changes something
    await createState(host.storage, NUM, { type: 'number' });
    await createState(host.storage, DOOMED, { type: 'number' });
    const before = await snapshot();
    const res = await app.request(write.path, { method: write.method ?? 'GET', raw: write.raw, headers: write.raw ? { ...TEXT, ...headers } : headers });
    return { res, before, after: await snapshot() };
}

t.test('a write from a foreign page is refused with 403 and changes nothing', async t => {
    for (const write of WRITES) {
        const { res, before, after } = await send(open, write, EVIL);
        t.equal(res.status, 403, write.name);
        t.match(res.json, { error: /origin https:\/\/evil\.example is refused/ }, `${write.name}: a JSON error naming the origin`);
        t.same(after, before, `${write.name}: nothing written`);
    }
});

t.test('a write by image or link (no Origin, Sec-Fetch-Site: cross-site) is refused and changes nothing', async t => {
    for (const write of WRITES.filter(w => !w.method)) {
        const { res, before, after } = await send(open, write, IMAGE);
        t.equal(res.status, 403, write.name);
        t.same(after, before, `${write.name}: nothing written`);
    }
});

t.test('an origin listed in corsOrigins may write, cross-site as it is', async t => {
    for (const write of WRITES) {
        const { res, before, after } = await send(listed, write, { ...EVIL, Origin: 'https://dash.example' });
        t.equal(res.status, 200, write.name);
        t.not(JSON.stringify(after), JSON.stringify(before), `${write.name}: written`);
    }
    const res = await listed.request(`/v1/state/${NUM}?value=15`, { headers: EVIL });
    t.equal(res.status, 403, 'an origin that is not listed is still refused');
});

t.test('a page of our own origin may write', async t => {
    const own = { Origin: `http://${HOST}`, Host: HOST, 'Sec-Fetch-Site': 'same-origin' };
    for (const write of WRITES) {
        const { res, before, after } = await send(open, write, own);
        t.equal(res.status, 200, write.name);
        t.not(JSON.stringify(after), JSON.stringify(before), `${write.name}: written`);
    }
    let res = await open.request(`/v1/state/${NUM}?value=16`, { headers: { Origin: 'https://127.0.0.1:8093', Host: HOST } });
    t.equal(res.status, 200, 'the same host and port under another scheme (a TLS proxy in front) is ours');
    res = await open.request(`/v1/state/${NUM}?value=17`, { headers: { Origin: 'https://home.example', Host: HOST, 'Sec-Fetch-Site': 'same-origin' } });
    t.equal(res.status, 200, 'the browser says same-origin (a proxy that rewrites Host)');
    res = await open.request(`/v1/state/${NUM}?value=18`, { headers: { Origin: 'http://127.0.0.1:8094', Host: HOST } });
    t.equal(res.status, 403, 'another port of the same host is another origin');
    res = await open.request(`/v1/state/${NUM}?value=19`, { headers: { Origin: 'null', Host: HOST } });
    t.equal(res.status, 403, 'an opaque origin (sandboxed frame, file://) is foreign');
});

t.test('without Origin and Sec-Fetch-Site (curl, integrations) every write works as in 4.0.2', async t => {
    for (const write of WRITES) {
        const { res, before, after } = await send(open, write, {});
        t.equal(res.status, 200, write.name);
        t.not(JSON.stringify(after), JSON.stringify(before), `${write.name}: written`);
    }
    const res = await open.request(`/v1/state/${NUM}?value=20`, { headers: { Host: 'evil.example' } });
    t.equal(res.status, 200, 'whatever Host they send');
});

t.test('reads from any page keep working, with CORS * as in 4.0.2', async t => {
    const res = await open.request(`/v1/state/${NUM}`, { headers: EVIL });
    t.equal(res.status, 200);
    t.equal(res.headers['access-control-allow-origin'], '*');
    const cmd = await open.request(`/v1/command/getState?id=${NUM}`, { headers: IMAGE });
    t.equal(cmd.status, 200, 'a read command by GET too');
});

t.test('DNS rebinding: a browser request under a name that is not ours is refused', async t => {
    const at = (h: string) => ({ Host: h, Origin: `http://${h}`, 'Sec-Fetch-Site': 'same-origin' });
    let res = await open.request(`/v1/state/${NUM}`, { headers: at('evil.example:8093') });
    t.equal(res.status, 403, 'a read under the attacker\'s name');
    t.match(res.json, { error: /Host evil\.example:8093 is not allowed/ });
    const before = await snapshot();
    res = await open.request(`/v1/state/${NUM}?value=21`, { headers: at('evil.example:8093') });
    t.equal(res.status, 403, 'a write that looks same-origin to the browser');
    t.same(await snapshot(), before, 'nothing written');
    res = await open.request('/v1/nothing', { headers: at('evil.example') });
    t.equal(res.status, 403, 'unknown paths too');
    res = await open.request(`/v1/state/${NUM}`, { headers: { Host: 'evil.example', 'Sec-Fetch-Site': 'none' } });
    t.equal(res.status, 403, 'a typed-in address carries only Sec-Fetch-Site');

    for (const name of ['127.0.0.1:8093', '192.168.1.20', 'localhost:8093', 'LOCALHOST', '[::1]:8093', '[fe80::1]', hostname(), `${hostname().split('.')[0]}:8093`]) {
        res = await open.request(`/v1/state/${NUM}`, { headers: at(name) });
        t.equal(res.status, 200, name);
    }
    res = await listed.request(`/v1/state/${NUM}`, { headers: at('IOBroker.home:8093') });
    t.equal(res.status, 200, 'a name in allowedHosts');
    res = await open.request(`/v1/state/${NUM}`, { headers: at('iobroker.home:8093') });
    t.equal(res.status, 403, 'not listed on the instance without it');
});

t.test('with auth on, credentials decide as before (the browser rules are for auth off)', async t => {
    const admin = basic('admin', 'iobroker');
    let res = await secured.request(`/v1/state/${NUM}`, { headers: { ...admin, Host: 'iobroker.example.net', Origin: 'https://iobroker.example.net' } });
    t.equal(res.status, 200, 'any host name, e.g. a DynDNS name');
    res = await secured.request(`/v1/state/${NUM}?value=22`, { headers: { ...admin, ...EVIL } });
    t.equal(res.status, 200, 'a write with explicit credentials from another page');
    res = await secured.request(`/v1/state/${NUM}?value=23`, { headers: EVIL });
    t.equal(res.status, 401, 'and none without them');
});

t.test('every answer carries X-Content-Type-Options: nosniff', async t => {
    const answers = {
        'a JSON answer': await open.request(`/v1/state/${NUM}`),
        'a 404 of a route': await open.request('/v1/state/0_userdata.0.browser.none'),
        'a 404 of no route': await open.request('/nothing/here'),
        'a docs asset': await open.request('/api-doc/docs-page.css'),
        'a plain value': await open.request(`/v1/state/${NUM}/plain`),
        'a browser refusal': await open.request(`/v1/state/${NUM}?value=1`, { headers: EVIL }),
        'a preflight': await open.request(`/v1/state/${NUM}`, { method: 'OPTIONS', headers: { Origin: 'https://dash.example', 'Access-Control-Request-Method': 'PATCH' } }),
    };
    for (const [name, res] of Object.entries(answers)) {
        t.equal(res.headers['x-content-type-options'], 'nosniff', `${name} (${res.status})`);
    }
});

t.test('stored files a browser would run are served sandboxed, others as they are', async t => {
    const files: Record<string, string | null> = {
        'page.html': 'sandbox',
        'pic.svg': 'sandbox',
        'feed.xhtml': 'sandbox',
        'code.js': 'sandbox',
        'notes.txt': null,
        'data.json': null,
    };
    for (const name of Object.keys(files)) {
        const res = await open.request(`/v1/file/${META}/${name}`, { method: 'POST', raw: '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>', headers: { 'Content-Type': 'application/octet-stream' } });
        t.equal(res.status, 200, `uploaded ${name}`);
    }
    for (const [name, csp] of Object.entries(files)) {
        const res = await open.request(`/v1/file/${META}/${name}`);
        t.equal(res.status, 200);
        t.equal(res.headers['content-security-policy'] ?? null, csp, `${name} (${res.headers['content-type']})`);
        t.equal(res.headers['x-content-type-options'], 'nosniff');
    }
    const cmd = await open.request(`/v1/command/readFile?adapter=${META}&fileName=page.html&binary=true`);
    t.equal(cmd.status, 200);
    t.equal(cmd.headers['content-security-policy'], 'sandbox', 'readFile with binary answers the raw bytes the same way');
    const b64 = await open.request(`/v1/command/readFile?adapter=${META}&fileName=page.html`);
    t.equal(b64.headers['content-security-policy'], undefined, 'in its JSON envelope a file is inert');
});

t.test('which types count as active, which hosts as ours', async t => {
    for (const type of ['text/html', 'TEXT/HTML; charset=utf-8', 'image/svg+xml', 'application/xhtml+xml', 'application/xml', 'text/xml', 'application/rss+xml', 'text/javascript', 'application/javascript', '', 'html']) {
        t.ok(isActiveContent(type), `active: "${type}"`);
    }
    for (const type of ['text/plain', 'application/json', 'image/png', 'application/octet-stream', 'text/css']) {
        t.notOk(isActiveContent(type), `inert: "${type}"`);
    }
    const names = ownHostNames(normalizeConfig({ allowedHosts: 'a.example, B.example' }), 'Pi.fritz.box');
    for (const h of ['pi', 'pi.fritz.box:8093', 'a.example', 'b.example:1', '10.0.0.1:80', '[2001:db8::1]:8093', 'localhost']) {
        t.ok(isOwnHost(h, names), h);
    }
    for (const h of [undefined, '', 'evil.example', 'localhost.evil.example', 'pi.evil.example', '[::1', '10.0.0.1.evil.example', 'localhost.']) {
        t.notOk(isOwnHost(h, names), JSON.stringify(h) ?? 'no Host');
    }
});
