/*
 * The nginx configuration of docs/en/reverse-proxy.md, as written, in front of the adapter (issue 31's
 * "done when"). Installs nothing: skipped without an nginx binary (.ci/run installs Debian's). Only
 * the two marked ports are replaced; nginx runs unprivileged in a temporary prefix.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { PROJECT_ROOT } from '../../scripts/embedded-storage';
import { createState } from '../support/iobroker';
import { startInProcess, type InProcessApp, type InProcessHost } from '../support/in-process';
import { freePort } from '../support/ports';
import { basic, rawRequest } from '../support/raw-request';

const NGINX = ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/local/nginx/sbin/nginx'].find(existsSync) ?? (spawnSync('nginx', ['-v']).error ? undefined : 'nginx');
const ADMIN = basic('admin', 'iobroker');
// loopback addresses of their own: nginx forwards them, the adapter sees nginx at 127.0.0.1
const CLIENT = '127.0.0.2';
const GUESSER = '127.0.0.3';
const P = '0_userdata.0.nginx';

/** The one nginx block of the document. */
function documentedConfig(): string {
    const doc = readFileSync(join(PROJECT_ROOT, 'docs', 'en', 'reverse-proxy.md'), 'utf8');
    const blocks = [...doc.matchAll(/```nginx\n([\s\S]*?)```/g)].map(m => m[1]);
    if (blocks.length !== 1) {
        throw new Error(`expected one nginx block in docs/en/reverse-proxy.md, found ${blocks.length}`);
    }
    return blocks[0];
}

let host: InProcessHost;
let app: InProcessApp;
let nginx: ChildProcess | undefined;
let dir: string;
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
    dir = mkdtempSync(join(tmpdir(), 'rest-api-nginx-'));
    const config = documentedConfig();
    if (!config.includes('listen 8080;') || !config.includes('127.0.0.1:8093')) {
        throw new Error('the marked ports are not in the nginx block');
    }
    // unprivileged: temporary files and the access log inside the prefix instead of /var
    const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(kind => {
        mkdirSync(join(dir, kind));
        return `${kind}_temp_path ${join(dir, kind)};`;
    });
    const runnable = config
        .replace('listen 8080;', `listen 127.0.0.1:${port};`)
        .replace('127.0.0.1:8093', `127.0.0.1:${upstream}`)
        .replace(/^http \{$/m, `http {\n    access_log off;\n    ${temp.join('\n    ')}`);
    writeFileSync(join(dir, 'nginx.conf'), runnable);
    nginx = spawn(NGINX, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', `daemon off; master_process off; pid ${dir}/nginx.pid; error_log ${dir}/error.log;`], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    nginx.stdout!.on('data', d => (output += d));
    nginx.stderr!.on('data', d => (output += d));
    base = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 10_000;
    for (;;) {
        if (nginx.exitCode !== null) {
            throw new Error(`nginx stopped: ${output}${existsSync(join(dir, 'error.log')) ? readFileSync(join(dir, 'error.log'), 'utf8') : ''}`);
        }
        const up = await rawRequest(`${base}/iobroker/api/name`).then(
            () => true,
            () => false,
        );
        if (up) {
            break;
        }
        if (Date.now() > deadline) {
            throw new Error(`nginx did not answer: ${output}`);
        }
        await new Promise(r => setTimeout(r, 100));
    }
});

t.teardown(async () => {
    if (nginx && nginx.exitCode === null) {
        const exited = new Promise(resolve => nginx!.once('exit', resolve));
        nginx.kill('SIGTERM');
        await exited;
    }
    await app?.close();
    await host?.stop();
    if (dir) {
        rmSync(dir, { recursive: true, force: true });
    }
});

const get = (path: string, headers: Record<string, string> = {}, localAddress = CLIENT) => rawRequest(`${base}${path}`, { headers, localAddress });

t.test('the documented nginx configuration, in front of the adapter under /iobroker/api/', { skip: NGINX ? false : 'no nginx binary (apt-get install nginx-light)' }, async t => {
    const root = await get('/iobroker/api/');
    t.same([root.status, root.headers.location], [302, '/iobroker/api/api-doc/'], 'the redirect to the docs page');
    const page = await get('/iobroker/api/api-doc/');
    t.equal(page.status, 200);
    t.match(page.text, 'src="/iobroker/api/api-doc/docs-init.js"', 'its assets under the public path');
    const asset = await get('/iobroker/api/api-doc/docs-init.js');
    t.equal(asset.status, 200, 'and they load');
    const css = await get('/iobroker/api/api-doc/swagger-ui.css');
    t.equal(css.status, 200);
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

t.test('damping through nginx sees the real client, not nginx', { skip: NGINX ? false : 'no nginx binary' }, async t => {
    // 4.0.2-style: every client has nginx's address, so one guesser would lock everyone out
    for (let i = 0; i < 12; i++) {
        await get(`/iobroker/api/v1/state/${P}.s1`, basic(`nobody${i}`, 'wrong'), GUESSER);
    }
    t.equal((await get(`/iobroker/api/v1/state/${P}.s1`, ADMIN, GUESSER)).status, 429, 'the guessing client is locked');
    t.equal((await get(`/iobroker/api/v1/state/${P}.s1`, ADMIN, CLIENT)).status, 200, 'another client through the same nginx is not');
    const spoofed = await get(`/iobroker/api/v1/state/${P}.s1`, { ...ADMIN, 'X-Forwarded-For': '127.0.0.9', Forwarded: 'for=127.0.0.9' }, GUESSER);
    t.equal(spoofed.status, 429, 'naming another address itself does not help the guesser');
});
