/*
 * The nginx configuration of docs/en/reverse-proxy.md, as written, in front of the adapter (issue 31's
 * "done when"). Installs nothing: skipped without an nginx binary (.ci/run installs Debian's). Only
 * the two marked ports are replaced; nginx runs unprivileged in a temporary prefix.
 */
import t from 'tap';
import { createState } from '../support/iobroker';
import { startInProcess, type InProcessApp, type InProcessHost } from '../support/in-process';
import { documentedConfig, NGINX, runNginx, skipWithout, substitute, type RunningProxy } from '../support/doc-proxy';
import { freePort } from '../support/ports';
import { basic, rawRequest } from '../support/raw-request';

const ADMIN = basic('admin', 'iobroker');
// loopback addresses of their own: nginx forwards them, the adapter sees nginx at 127.0.0.1
const CLIENT = '127.0.0.2';
const GUESSER = '127.0.0.3';
const P = '0_userdata.0.nginx';

let host: InProcessHost;
let app: InProcessApp;
let nginx: RunningProxy | undefined;
let base: string;

t.before(async () => {
    if (!NGINX) {
        return;
    }
    host = await startInProcess();
    for (const n of [1, 2, 3]) {
        await createState(host.storage, `${P}.s${n}`, { type: 'number' }, n);
    }
    app = await host.app({ auth: true, trustProxy: '127.0.0.1' });
    const upstream = new URL(await app.serve()).port;
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    nginx = await runNginx(
        substitute(documentedConfig('reverse-proxy.md', 'nginx'), { 'listen 8080;': `listen 127.0.0.1:${port};`, '127.0.0.1:8093': `127.0.0.1:${upstream}` }),
        `${base}/iobroker/api/name`,
    );
});

t.teardown(async () => {
    await nginx?.stop();
    await app?.close();
    await host?.stop();
});

const get = (path: string, headers: Record<string, string> = {}, localAddress = CLIENT) => rawRequest(`${base}${path}`, { headers, localAddress });

t.test('the documented nginx configuration, in front of the adapter under /iobroker/api/', { skip: skipWithout(NGINX, 'nginx-light') }, async t => {
    if (!NGINX) {
        t.fail('nginx is not installed');
        return;
    }
    const root = await get('/iobroker/api/');
    t.same([root.status, root.headers.location], [302, '/iobroker/api/api-doc/'], 'the redirect to the docs page');
    const page = await get('/iobroker/api/api-doc/');
    t.equal(page.status, 200);
    // resolved as the browser does, against the public address of the page
    const assets = [...page.text.matchAll(/(?:href|src)="([^"]+)"/g)].map(m => new URL(m[1], `${base}/iobroker/api/api-doc/`).pathname);
    t.ok(assets.length >= 5 && assets.every(path => path.startsWith('/iobroker/api/')), 'its assets under the public path');
    for (const path of assets) {
        t.equal((await get(path)).status, 200, `${path} loads through nginx`);
    }
    const doc = await get('/iobroker/api/api-docs/openapi.json', ADMIN);
    t.same(doc.json.servers.map((s: { url: string }) => s.url), [`${base}/iobroker/api`], 'the document names the public base');

    const first = await get(`/iobroker/api/v1/states?filter=${P}.*&limit=2`, ADMIN);
    t.equal(first.status, 200);
    const link = /^<([^>]+)>; rel="next"$/.exec(first.headers.link ?? '')?.[1];
    t.match(link, /^\/iobroker\/api\/v1\/states\?filter=.*&limit=2&cursor=/, 'the Link names the public path');
    const second = await get(link!, ADMIN);
    t.same([second.status, Object.keys(second.json)], [200, [`${P}.s3`]], 'and leads to the next page through nginx');

    const hook = await rawRequest(`${base}/iobroker/api/v1/webhooks/door`, { method: 'PUT', headers: { ...ADMIN, 'Content-Type': 'application/json' }, body: '{}', localAddress: CLIENT });
    t.equal(hook.status, 200);
    t.equal(hook.json.url, `${base}/iobroker/api/webhooks/door`, 'the webhook URL is the public one');
    const delivered = await rawRequest(`${hook.json.url}?key=${hook.json.secret}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"ring":true}', localAddress: CLIENT });
    t.equal(delivered.status, 200, 'and senders reach it there');
});

t.test('damping through nginx sees the real client, not nginx', { skip: skipWithout(NGINX, 'nginx-light') }, async t => {
    if (!NGINX) {
        t.fail('nginx is not installed');
        return;
    }
    // 4.0.2-style: every client has nginx's address, so one guesser would lock everyone out
    for (let i = 0; i < 12; i++) {
        await get(`/iobroker/api/v1/state/${P}.s1`, basic(`nobody${i}`, 'wrong'), GUESSER);
    }
    t.equal((await get(`/iobroker/api/v1/state/${P}.s1`, ADMIN, GUESSER)).status, 429, 'the guessing client is locked');
    t.equal((await get(`/iobroker/api/v1/state/${P}.s1`, ADMIN, CLIENT)).status, 200, 'another client through the same nginx is not');
    const spoofed = await get(`/iobroker/api/v1/state/${P}.s1`, { ...ADMIN, 'X-Forwarded-For': '127.0.0.9', Forwarded: 'for=127.0.0.9' }, GUESSER);
    t.equal(spoofed.status, 429, 'naming another address itself does not help the guesser');
});
