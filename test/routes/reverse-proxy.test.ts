/*
 * Behind a reverse proxy (issue 31): every URL the adapter writes names the public origin and path
 * when a trusted proxy says so (or publicUrl does), damping counts the forwarded client, and the same
 * headers from any other peer change nothing. In-process, with the socket peer set per request; the
 * web-extension mode through the extension's own handler as web mounts it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { inject } from 'light-my-request';
import t from 'tap';
import RestApiExtension from '../../src/extension';
import { ASSET_VERSION } from '../../src/http/static-files';
import { createState, createUser, type HttpAnswer } from '../support/iobroker';
import { startInProcess, type InProcessApp, type InProcessHost } from '../support/in-process';
import { basic, toAnswer } from '../support/raw-request';

const ADMIN = basic('admin', 'iobroker');
const PROXY = '10.0.0.1';
const STRANGER = '203.0.113.5';
const PUBLIC = 'https://home.example.org/iobroker/api';
// what nginx in docs/en/reverse-proxy.md sends, and what a client could send itself
const FORWARDED = { 'X-Forwarded-For': '192.0.2.10', 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'home.example.org', 'X-Forwarded-Prefix': '/iobroker/api' };
const P = '0_userdata.0.rp';

let host: InProcessHost;
let plain: InProcessApp;
let proxied: InProcessApp;
let fixed: InProcessApp;
t.before(async () => {
    host = await startInProcess();
    for (const n of [1, 2, 3]) {
        await createState(host.storage, `${P}.s${n}`, { type: 'number' }, n);
    }
    await createUser(host.storage, 'bob', { state: { read: true }, object: { read: true } }, 'bobs-secret');
    await createUser(host.storage, 'target', { state: { read: true }, object: { read: true } }, 'right');
    plain = await host.app({ auth: true });
    proxied = await host.app({ auth: true, trustProxy: `${PROXY}, fd00::/8` });
    fixed = await host.app({ auth: true, trustProxy: PROXY, publicUrl: PUBLIC });
});
t.teardown(async () => {
    for (const app of [plain, proxied, fixed]) {
        await app?.close();
    }
    await host?.stop();
});

const next = (res: HttpAnswer): string | undefined => /^<([^>]+)>; rel="next"$/.exec(String(res.headers.link ?? ''))?.[1];

/** Every URL the adapter writes, as one client sees them. */
async function urls(request: (path: string, options?: { method?: string; headers?: Record<string, string> }) => Promise<HttpAnswer>, mount = ''): Promise<Record<string, unknown>> {
    const redirect = await request(`${mount}/`);
    const page = await request(`${mount}/api-doc/`);
    const doc = await request(`${mount}/api-docs/openapi.json`, { headers: ADMIN });
    const states = await request(`${mount}/v1/states?filter=${P}.*&limit=1`, { headers: ADMIN });
    const command = await request(`${mount}/v1/command/getStates?pattern=${P}.*&limit=1`, { headers: ADMIN });
    const hook = await request(`${mount}/v1/webhooks/door`, { method: 'PUT', headers: ADMIN });
    const hooks = await request(`${mount}/v1/webhooks`, { headers: ADMIN });
    for (const res of [doc, states, command, hook, hooks]) {
        if (res.status !== 200) {
            throw new Error(`${res.status} ${res.text}`);
        }
    }
    return {
        redirect: [redirect.status, redirect.headers.location],
        assets: [...page.text.matchAll(/(?:href|src)="([^"]+)"/g)].map(m => m[1]),
        servers: doc.json.servers.map((s: { url: string }) => s.url),
        link: next(states)?.replace(/cursor=[^&]+/, 'cursor=C'),
        commandLink: next(command)?.replace(/cursor=[^&]+/, 'cursor=C'),
        webhook: hook.json.url,
        listed: hooks.json.find((h: { name: string }) => h.name === 'door')?.url,
    };
}

const asPeer = (app: InProcessApp, remoteAddress: string, headers: Record<string, string> = {}) => (path: string, options: { method?: string; headers?: Record<string, string> } = {}) =>
    app.request(path, { ...options, remoteAddress, headers: { ...headers, ...options.headers } });

const PUBLIC_URLS = {
    redirect: [302, '/iobroker/api/api-doc/'],
    // relative: right under any public path (the docs page test below loads them through the proxy)
    assets: ['../favicon.ico', ...['swagger-ui.css', 'docs-page.css', 'swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js', 'docs-init.js'].map(file => `static/${ASSET_VERSION}/${file}`)],
    servers: ['https://home.example.org/iobroker/api'],
    link: `/iobroker/api/v1/states?filter=${P}.*&limit=1&cursor=C`,
    commandLink: `/iobroker/api/v1/command/getStates?pattern=${encodeURIComponent(`${P}.*`)}&limit=1&cursor=C`,
    webhook: 'https://home.example.org/iobroker/api/webhooks/door',
    listed: 'https://home.example.org/iobroker/api/webhooks/door',
};

t.test('through a trusted proxy every written URL is the public one, under either mount', async t => {
    const direct = await urls(asPeer(plain, '127.0.0.1'));
    t.match(direct, { redirect: [302, '/api-doc/'], servers: ['/'], link: `/v1/states?filter=${P}.*&limit=1&cursor=C`, webhook: 'http://localhost:80/webhooks/door' }, 'without a proxy, as before (the Host header light-my-request sends)');
    t.same(await urls(asPeer(proxied, PROXY, FORWARDED)), PUBLIC_URLS);
    t.same(await urls(asPeer(proxied, PROXY, FORWARDED), '/rest-api'), PUBLIC_URLS, 'the public prefix takes the place of /rest-api');
    const viaForwarded = await urls(asPeer(proxied, 'fd00::17', { Forwarded: 'for=192.0.2.10;proto=https;host=home.example.org', 'X-Forwarded-Prefix': '/iobroker/api' }));
    t.same(viaForwarded, PUBLIC_URLS, 'RFC 7239 Forwarded from a trusted IPv6 proxy (a CIDR)');
    const noPrefix = await urls(asPeer(proxied, PROXY, { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'home.example.org' }));
    t.match(noPrefix, { redirect: [302, '/api-doc/'], servers: ['https://home.example.org/'], webhook: 'https://home.example.org/webhooks/door' }, 'origin without a prefix');
});

t.test('headers from an untrusted peer change nothing', async t => {
    const baseline = await urls(asPeer(proxied, STRANGER));
    t.same(await urls(asPeer(proxied, STRANGER, FORWARDED)), baseline, 'same URLs as without the headers');
    t.notSame(await urls(asPeer(proxied, PROXY, FORWARDED)), baseline, 'while the trusted proxy sending the same is believed');
    t.same(await urls(asPeer(plain, PROXY, FORWARDED)), await urls(asPeer(plain, PROXY)), 'and with trustProxy empty, from any peer');
    t.equal(baseline.webhook, 'http://localhost:80/webhooks/door');
    t.same(baseline.servers, ['/']);
    const evil = { ...FORWARDED, 'X-Forwarded-Host': 'evil.example/x', 'X-Forwarded-Prefix': '//evil.example', 'X-Forwarded-Proto': 'javascript' };
    const refused = await urls(asPeer(proxied, PROXY, evil));
    t.same(refused, { ...(await urls(asPeer(proxied, PROXY))), webhook: refused.webhook }, 'a trusted proxy passing invalid values: ignored');
    t.notMatch(JSON.stringify(refused), /evil/, 'never echoed');
});

t.test('publicUrl names the public base for requests through the proxy, whatever it forwards', async t => {
    const other = { ...FORWARDED, 'X-Forwarded-Host': 'other.example', 'X-Forwarded-Prefix': '/other' };
    t.same(await urls(asPeer(fixed, PROXY, other)), PUBLIC_URLS);
    t.same(await urls(asPeer(fixed, PROXY, {}), '/rest-api'), PUBLIC_URLS, 'even when it forwards nothing');
    t.same(await urls(asPeer(fixed, STRANGER, other)), await urls(asPeer(plain, STRANGER)), 'a client reaching the port directly gets the direct URLs');
    const alone = await host.app({ auth: true, publicUrl: PUBLIC });
    t.teardown(() => alone.close());
    t.same(await urls(asPeer(alone, STRANGER, other)), PUBLIC_URLS, 'without trustProxy: for every request');
});

t.test('the docs page and every asset it names load through the proxy', async t => {
    const through = (path: string) => proxied.request(path, { remoteAddress: PROXY, headers: FORWARDED });
    const page = await through('/api-doc/');
    t.equal(page.status, 200);
    const assets = [...page.text.matchAll(/(?:href|src)="([^"]+)"/g)].map(m => new URL(m[1], 'https://home.example.org/iobroker/api/api-doc/').pathname);
    t.equal(assets.length, 6);
    for (const asset of assets) {
        // the proxy strips the public prefix before passing the request on
        t.ok(asset.startsWith('/iobroker/api/'), asset);
        t.equal((await through(asset.slice('/iobroker/api'.length))).status, 200, asset);
    }
    const init = await through('/api-doc/docs-init.js');
    t.match(init.text, /'\.\.\/api-docs\/openapi\.json'/, 'the page finds the document relative to where it was loaded');
});

t.test('damping counts the forwarded client, and a peer that is not trusted cannot name another', async t => {
    const login = (app: InProcessApp, remoteAddress: string, user: string, password: string, xff?: string) =>
        app.request(`/v1/state/${P}.s1`, { remoteAddress, headers: { ...basic(user, password), ...(xff ? { 'X-Forwarded-For': xff } : {}) } });
    // the owner of `target` logs in behind the proxy, then someone else behind the same proxy guesses its password
    t.equal((await login(proxied, PROXY, 'target', 'right', '192.0.2.77')).status, 200);
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) {
        statuses.push((await login(proxied, PROXY, 'target', `wrong${i}`, '192.0.2.66')).status);
    }
    t.same([statuses[0], statuses[9]], [401, 429], 'the guessing client is locked');
    t.equal((await login(proxied, PROXY, 'target', 'right', '192.0.2.66')).status, 429, 'even with the right password');
    t.equal((await login(proxied, PROXY, 'target', 'right', '192.0.2.77')).status, 200, 'the owner behind the same proxy is not');
    t.equal((await login(proxied, PROXY, 'target', 'right', '6.6.6.6, 192.0.2.77')).status, 200, "what a client writes into the header itself doesn't matter");
    t.equal((await login(proxied, PROXY, 'target', 'right', '192.0.2.77, 192.0.2.66')).status, 429, 'nor can the guesser pass for the owner');

    // guessing across user names locks the guessing address, not the proxy's
    for (let i = 0; i < 12; i++) {
        await login(proxied, PROXY, `nobody${i}`, 'wrong', '192.0.2.88');
    }
    t.equal((await login(proxied, PROXY, 'bob', 'bobs-secret', '192.0.2.88')).status, 429, 'the guessing address is locked for every name');
    t.equal((await login(proxied, PROXY, 'bob', 'bobs-secret', '192.0.2.99')).status, 200, 'another client behind the same proxy is not');

    // the same from a peer that is not trusted: whatever it forwards, its own address is counted
    for (let i = 0; i < 12; i++) {
        await login(proxied, STRANGER, `someone${i}`, 'wrong', `198.51.100.${i}`);
    }
    t.equal((await login(proxied, STRANGER, 'bob', 'bobs-secret', '198.51.100.200')).status, 429, 'an untrusted peer stays locked whatever it forwards');
    t.equal((await login(proxied, STRANGER, 'bob', 'bobs-secret')).status, 429);
    t.equal((await login(proxied, PROXY, 'bob', 'bobs-secret', '198.51.100.3')).status, 200, 'the addresses it named were never counted');
});

/** The extension as web mounts it: web's app hands every request to the handler it registered. */
async function extension(native: Record<string, unknown>): Promise<{ request(path: string, remoteAddress: string, headers?: Record<string, string>, method?: string): Promise<HttpAnswer>; unload(): Promise<void> }> {
    let handler: ((req: IncomingMessage, res: ServerResponse, next: () => void) => void) | undefined;
    const webApp = { use: (h: typeof handler) => (handler = h) };
    const instance = { _id: 'system.adapter.rest-api.0', type: 'instance', common: {}, native: { auth: true, ...native } } as unknown as ioBroker.InstanceObject;
    const ext = new RestApiExtension(undefined as never, { auth: false }, host.adapter, instance, webApp);
    await new Promise<void>(resolve => ext.waitForReady(resolve));
    return {
        async request(path, remoteAddress, headers = {}, method = 'GET') {
            const res = await inject((req, res) => handler!(req, res, () => res.writeHead(404).end('web: not found')), { method: method as 'GET', url: path, headers: { ...ADMIN, ...headers }, remoteAddress });
            return toAnswer(res.statusCode, res.headers, res.payload);
        },
        unload: () => ext.unload(),
    };
}

t.test('web-extension mode: the same under /rest-api/ on web\'s server', async t => {
    const ext = await extension({ trustProxy: PROXY });
    t.teardown(() => ext.unload());
    const via = (path: string, options: { method?: string; headers?: Record<string, string> } = {}) => ext.request(path, PROXY, { ...FORWARDED, ...options.headers }, options.method);
    t.same(await urls(via, '/rest-api'), PUBLIC_URLS);
    const direct = (path: string, options: { method?: string; headers?: Record<string, string> } = {}) => ext.request(path, STRANGER, { ...FORWARDED, ...options.headers }, options.method);
    t.match(await urls(direct, '/rest-api'), { redirect: [302, '/rest-api/api-doc/'], servers: ['/rest-api'], link: `/rest-api/v1/states?filter=${P}.*&limit=1&cursor=C`, webhook: 'http://localhost:80/rest-api/webhooks/door' }, 'an untrusted peer: the mount as before');
});

t.test('a malformed trustProxy or publicUrl: said once, nothing served until corrected', async t => {
    const ext = await extension({ trustProxy: '10.0.0.0/33' });
    t.teardown(() => ext.unload());
    const res = await ext.request('/rest-api/v1/state/0_userdata.0.rp.s1', STRANGER);
    t.equal(res.text, 'web: not found', 'passed on to web, which knows no such path');
});
