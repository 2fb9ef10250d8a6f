/*
 * Web-extension mode inside the real ioBroker web adapter (iobroker.web from the registry, in the dev
 * workspace), started on the test storage as js-controller starts it: `node main.js --console` with
 * its instance object, and this instance naming it in `webInstance`. Web compresses every answer and,
 * with its auth on, reads JSON, form and text bodies before any extension sees them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createGunzip } from 'node:zlib';
import { request } from 'node:http';
import t from 'tap';
import { PROJECT_ROOT } from '../scripts/embedded-storage';
import { stopProcess } from '../scripts/stop-process';
import { startIobroker, type IobFixture } from './support/iobroker';
import { freePort } from './support/ports';
import { startHookReceiver } from './support/hook-receiver';
import { rawRequest } from './support/raw-request';
import { checkedFetch, checkers, ResponseChecker } from './support/response-check';

const WEB_DIR = dirname(require.resolve('iobroker.web/package.json'));
// eslint-disable-next-line @typescript-eslint/no-require-imports
const webPackage = require(join(WEB_DIR, 'io-package.json'));
const STATE = '0_userdata.0.realweb';

let iob: IobFixture;
// a node_modules of an installation: this project as iobroker.rest-api
const modules = mkdtempSync(join(tmpdir(), 'rest-api-real-web-'));
symlinkSync(PROJECT_ROOT, join(modules, 'iobroker.rest-api'), 'dir');
t.before(async () => {
    iob = await startIobroker();
    await iob.createState(STATE, { type: 'number' }, 1);
    await iob.createUser('viewer', { state: { read: true }, object: { read: true } }, 'v');
    // this instance runs inside web from now on: its own process stops, as js-controller would not start it
    await iob.stopAdapter();
    const instance = await iob.storage.objects.getObjectAsync('system.adapter.rest-api.0');
    instance.native.webInstance = 'web.0';
    instance.common.enabled = true;
    await iob.storage.objects.setObjectAsync('system.adapter.rest-api.0', instance);
});
t.teardown(async () => {
    await iob?.stop();
    rmSync(modules, { recursive: true, force: true });
});

interface Web {
    base: string;
    port: number;
    output(): string;
    proc: ChildProcess;
}

/** web.0 with these settings (its defaults from its io-package.json otherwise), started and answering. */
async function startWeb(native: Record<string, unknown>): Promise<Web> {
    const port = await freePort();
    const host = (await iob.storage.objects.getObjectAsync('system.adapter.rest-api.0')).common.host;
    await iob.storage.objects.setObjectAsync('system.adapter.web', {
        _id: 'system.adapter.web',
        type: 'adapter',
        common: webPackage.common,
        native: webPackage.native,
    });
    await iob.storage.objects.setObjectAsync('system.adapter.web.0', {
        _id: 'system.adapter.web.0',
        type: 'instance',
        common: { ...webPackage.common, enabled: true, host, mode: 'daemon' },
        native: { ...webPackage.native, port, bind: '127.0.0.1', secure: false, ...native },
    });
    // a web killed before (a failed start) left its alive flag, and web would take itself for running
    await iob.storage.states.setStateAsync('system.adapter.web.0.alive', { val: false, ack: true });
    // web requires `iobroker.rest-api/<webExtension>`, as from an installation's node_modules (in a
    // folder without ./build/src/extension.js, which web would try first)
    const proc = spawn(
        process.execPath,
        [
            '--require',
            join(__dirname, 'support', 'exit-with-parent.js'),
            join(WEB_DIR, 'build', 'main.js'),
            '--console',
        ],
        {
            cwd: modules,
            env: { ...process.env, IOBROKER_DATA_DIR: iob.storage.dataDir, NODE_PATH: modules },
            stdio: ['ignore', 'pipe', 'pipe'],
        },
    );
    let output = '';
    proc.stdout.on('data', d => (output += d));
    proc.stderr.on('data', d => (output += d));
    const deadline = Date.now() + 30_000;
    while (!output.includes('mounted under /rest-api/')) {
        if (Date.now() > deadline || proc.exitCode !== null) {
            proc.kill('SIGKILL');
            throw new Error(`web did not mount the extension:\n${output}`);
        }
        await new Promise(r => setTimeout(r, 100));
    }
    return { base: `http://127.0.0.1:${port}`, port, output: () => output, proc };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const json = (res: Response): Promise<any> => res.json();
const basic = (user: string, pass: string) => ({
    Authorization: `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`,
});
const stored = async () => (await iob.storage.states.getStateAsync(STATE))?.val;

/** The first SSE event of /v1/events, as a browser asks for it (compression offered); resolves with its text and the time it took after `trigger`. */
function firstEvent(
    web: Web,
    headers: Record<string, string>,
    trigger: () => Promise<void>,
): Promise<{ text: string; ms: number; encoding?: string }> {
    return new Promise((resolve, reject) => {
        const req = request(
            `${web.base}/rest-api/v1/events?pattern=${STATE}`,
            { headers: { Accept: 'text/event-stream', 'Accept-Encoding': 'gzip, deflate, br', ...headers } },
            res => {
                const encoding = res.headers['content-encoding'];
                const body = encoding === 'gzip' ? res.pipe(createGunzip()) : res;
                let text = '';
                let started = 0;
                body.on('data', chunk => {
                    text += chunk;
                    if (started && /\ndata: .*"val":/.test(text)) {
                        resolve({ text, ms: Date.now() - started, encoding });
                        req.destroy();
                    }
                });
                // the stream is open: a change made now must arrive within a second
                setTimeout(() => {
                    started = Date.now();
                    trigger().catch(reject);
                }, 300);
                setTimeout(() => {
                    reject(
                        new Error(
                            `no event within 5 s (${res.statusCode}, encoding ${encoding}): ${JSON.stringify(text)}`,
                        ),
                    );
                    req.destroy();
                }, 5300);
            },
        );
        req.on('error', err => (err.message === 'socket hang up' ? undefined : reject(err)));
        req.end();
    });
}

t.test(
    'web with its auth off: reads, JSON writes, commands, docs, long polling and an event stream through web',
    async t => {
        const web = await startWeb({ auth: false });
        t.teardown(() => stopProcess(web.proc));
        t.equal((await fetch(`${web.base}/rest-api/v1/state/${STATE}`).then(json)).val, 1, 'a state read');
        const patch = await fetch(`${web.base}/rest-api/v1/state/${STATE}`, {
            method: 'PATCH',
            body: JSON.stringify({ val: 77 }),
            headers: { 'Content-Type': 'application/json' },
        });
        t.equal(patch.status, 200, 'a JSON write');
        t.equal(await stored(), 77, 'stored');
        const text = await fetch(`${web.base}/rest-api/v1/state/${STATE}`, {
            method: 'PATCH',
            body: '{"val":78}',
            headers: { 'Content-Type': 'text/plain' },
        });
        t.equal(text.status, 200, 'a JSON write sent as text');
        t.equal(await stored(), 78);
        t.equal(
            (await fetch(`${web.base}/rest-api/v1/command/getState?id=${STATE}`).then(json)).result.val,
            78,
            'a command',
        );
        const docs = await fetch(`${web.base}/rest-api/`);
        t.equal(docs.status, 200, 'the docs page');
        await fetch(`${web.base}/rest-api/v1/state/${STATE}/subscribe?sid=rw&method=polling`);
        const poll = fetch(`${web.base}/rest-api/v1/polling?sid=rw&timeout=5000`).then(json);
        await new Promise(r => setTimeout(r, 300));
        await iob.storage.states.setStateAsync(STATE, { val: 79, ack: true });
        t.equal((await poll).state.val, 79, 'long polling');

        const event = await firstEvent(web, {}, () =>
            iob.storage.states.setStateAsync(STATE, { val: 80, ack: true }).then(() => undefined),
        );
        t.match(event.text, '"val":80', 'the event stream delivers the change');
        t.ok(event.ms < 1000, `the first event within a second (${event.ms} ms)`);
        t.not(event.encoding, 'br', 'not held back in a compressor');
    },
);

t.test(
    "web with its auth on (Basic allowed): writes of every body kind arrive, as the user web authenticated, without web's login fields",
    async t => {
        const web = await startWeb({ auth: true, basicAuth: true });
        t.teardown(() => stopProcess(web.proc));
        const admin = basic('admin', 'iobroker');
        const anonymous = await fetch(`${web.base}/rest-api/v1/state/${STATE}`, { redirect: 'manual' });
        t.ok([302, 401].includes(anonymous.status), `web refuses an anonymous client (${anonymous.status})`);

        const asJson = await fetch(`${web.base}/rest-api/v1/state/${STATE}`, {
            method: 'PATCH',
            body: JSON.stringify({ val: 91 }),
            headers: { ...admin, 'Content-Type': 'application/json' },
        });
        t.equal(asJson.status, 200, `JSON body: ${await asJson.clone().text()}`);
        t.equal(await stored(), 91, 'stored');

        const binary = await fetch(`${web.base}/rest-api/v1/state/${STATE}`, {
            method: 'PATCH',
            body: JSON.stringify({ val: 92 }),
            headers: { ...admin, 'Content-Type': 'application/octet-stream' },
        });
        t.equal(binary.status, 200, 'a body web leaves alone');
        t.equal(await stored(), 92);

        const text = await fetch(`${web.base}/rest-api/v1/state/${STATE}`, {
            method: 'PATCH',
            body: '{"val":96}',
            headers: { ...admin, 'Content-Type': 'text/plain' },
        });
        t.equal(text.status, 200, `JSON sent as text: ${await text.clone().text()}`);
        t.equal(await stored(), 96);

        const form = await fetch(`${web.base}/rest-api/v1/state/${STATE}`, {
            method: 'PATCH',
            body: '{"val":93}',
            headers: { ...admin, 'Content-Type': 'application/x-www-form-urlencoded' },
        });
        t.equal(form.status, 200, 'JSON sent as a form (curl -d)');
        t.equal(await stored(), 93);
        // web decodes %37 to 7: what it parsed is {"val":97}, which the client never sent
        const decoded = await fetch(`${web.base}/rest-api/v1/state/${STATE}`, {
            method: 'PATCH',
            body: '{"val":9%37}',
            headers: { ...admin, 'Content-Type': 'application/x-www-form-urlencoded' },
        });
        t.equal(decoded.status, 415, `a form web changed: ${await decoded.clone().text()}`);
        t.match((await json(decoded)).error, 'application/json', 'the answer names the type to send');
        t.equal(await stored(), 93, 'nothing written');
        const file = await fetch(`${web.base}/rest-api/v1/file/0_userdata.0/realweb.json`, {
            method: 'POST',
            body: '{ "a": 1 }\n',
            headers: { ...admin, 'Content-Type': 'application/json' },
        });
        t.equal(file.status, 415, `a JSON file web parsed is not stored rewritten: ${await file.clone().text()}`);

        // an object written through web keeps none of the credentials web put into the parsed body
        const object = {
            type: 'state',
            common: { name: 'through web', type: 'number', role: 'value', read: true, write: true },
            native: { kept: 1 },
        };
        const put = await fetch(`${web.base}/rest-api/v1/object/0_userdata.0.realweb2`, {
            method: 'PUT',
            body: JSON.stringify(object),
            headers: { ...admin, 'Content-Type': 'application/json' },
        });
        t.equal(put.status, 200, `an object write: ${await put.clone().text()}`);
        const written = await iob.storage.objects.getObjectAsync('0_userdata.0.realweb2');
        t.same(written?.native, { kept: 1 });
        t.notOk(JSON.stringify(written).includes('iobroker'), 'no password in the stored object');
        t.notOk('username' in (written ?? {}) || 'password' in (written ?? {}), 'no login fields');

        const viewer = await fetch(`${web.base}/rest-api/v1/state/${STATE}`, {
            method: 'PATCH',
            body: JSON.stringify({ val: 94 }),
            headers: { ...basic('viewer', 'v'), 'Content-Type': 'application/json' },
        });
        t.equal(viewer.status, 403, 'a user who may only read is refused the write');
        t.equal(await stored(), 93, 'nothing written');
        // web's login may be a session cookie that any page's request carries: writes from foreign pages are refused
        const foreign = await rawRequest(`${web.base}/rest-api/v1/state/${STATE}?value=10`, {
            headers: { ...admin, 'Sec-Fetch-Site': 'cross-site' },
        });
        t.equal(foreign.status, 403, 'a write by image or link');
        t.equal(await stored(), 93, 'nothing written');
        const rebound = await rawRequest(`${web.base}/rest-api/v1/state/${STATE}`, {
            headers: { ...admin, Host: 'iobroker.example.net', Origin: 'https://iobroker.example.net' },
        });
        t.equal(rebound.status, 200, 'any host name: a rebinding page has no login for our name');

        const event = await firstEvent(web, admin, () =>
            iob.storage.states.setStateAsync(STATE, { val: 95, ack: true }).then(() => undefined),
        );
        t.match(event.text, '"val":95', 'the event stream through web with its auth on');
        t.ok(event.ms < 1000, `within a second (${event.ms} ms)`);
    },
);

/** Logs in at web's login form and returns the session cookie web set. */
async function login(web: Web, username: string, password: string): Promise<string> {
    const res = await fetch(`${web.base}/login`, {
        method: 'POST',
        body: new URLSearchParams({ username, password }),
        redirect: 'manual',
    });
    const cookie = res.headers
        .getSetCookie()
        .map(line => line.split(';')[0])
        .find(pair => pair.startsWith('connect.sid='));
    if (!cookie) {
        throw new Error(`no session cookie from web's login (${res.status})`);
    }
    return cookie;
}

void t.test(
    "web with its auth on (login page): web's session cookie, uploads, URL hooks, and what an anonymous client gets",
    async t => {
        const web = await startWeb({ auth: true, basicAuth: false });
        t.teardown(() => stopProcess(web.proc));
        const anonymous = await fetch(`${web.base}/rest-api/v1/state/${STATE}`, { redirect: 'manual' });
        t.equal(anonymous.status, 302, 'an anonymous client is sent to the login page');
        t.match(anonymous.headers.get('location') ?? '', /login/, "to web's login page");

        const viewer = { Cookie: await login(web, 'viewer', 'v') };
        const read = await fetch(`${web.base}/rest-api/v1/state/${STATE}`, { headers: viewer });
        t.equal(read.status, 200, 'a session of a reader reads');
        const refused = await fetch(`${web.base}/rest-api/v1/state/${STATE}`, {
            method: 'PATCH',
            body: JSON.stringify({ val: 1 }),
            headers: { ...viewer, 'Content-Type': 'application/json' },
        });
        t.equal(refused.status, 403, 'and may not write');

        const admin = { Cookie: await login(web, 'admin', 'iobroker') };
        const patch = await fetch(`${web.base}/rest-api/v1/state/${STATE}`, {
            method: 'PATCH',
            body: JSON.stringify({ val: 101 }),
            headers: { ...admin, 'Content-Type': 'application/json' },
        });
        t.equal(patch.status, 200, 'a session of an administrator writes JSON');
        t.equal(await stored(), 101);

        const upload = new FormData();
        upload.append('file', new Blob([Buffer.from('uploaded through web')]), 'realweb.txt');
        const uploaded = await fetch(`${web.base}/rest-api/v1/file/0_userdata.0/realweb.txt`, {
            method: 'POST',
            body: upload,
            headers: admin,
        });
        t.equal(uploaded.status, 200, `a multipart upload: ${await uploaded.clone().text()}`);
        t.equal(
            await (await fetch(`${web.base}/rest-api/v1/file/0_userdata.0/realweb.txt`, { headers: admin })).text(),
            'uploaded through web',
            'read back',
        );
        const notAllowed = new FormData();
        notAllowed.append('file', new Blob([Buffer.from('x')]), 'viewer.txt');
        t.equal(
            (
                await fetch(`${web.base}/rest-api/v1/file/0_userdata.0/viewer.txt`, {
                    method: 'POST',
                    body: notAllowed,
                    headers: viewer,
                })
            ).status,
            403,
            'a reader may not upload',
        );

        const hooks = await startHookReceiver();
        t.teardown(() => hooks.close());
        const subscribed = await fetch(`${web.base}/rest-api/v1/state/${STATE}/subscribe`, {
            method: 'POST',
            body: JSON.stringify({ url: hooks.url }),
            headers: { ...admin, 'Content-Type': 'application/json' },
        });
        t.equal(subscribed.status, 200, `a URL hook subscribed through web: ${await subscribed.clone().text()}`);
        await iob.storage.states.setStateAsync(STATE, { val: 102, ack: true });
        const deadline = Date.now() + 5000;
        while (!hooks.received.some(d => d.body.includes('"val":102')) && Date.now() < deadline) {
            await new Promise(r => setTimeout(r, 50));
        }
        t.ok(
            hooks.received.some(d => d.body.includes('"val":102')),
            'the hook is called with the change',
        );
    },
);

/** An access token from web's OAuth2 token route (password grant), as a script or an app logs in at web. */
async function webToken(web: Web, username: string, password: string): Promise<string> {
    const res = await fetch(`${web.base}/oauth/token`, {
        method: 'POST',
        body: new URLSearchParams({ grant_type: 'password', username, password, client_id: 'ioBroker' }),
    });
    const body = (await res.json()) as { access_token?: string };
    if (!body.access_token) {
        throw new Error(`no token from web (${res.status}): ${JSON.stringify(body)}`);
    }
    return body.access_token;
}

void t.test(
    "web with its auth and OAuth on: web's bearer tokens reach the extension as their user, and a script gets a JSON 401",
    async t => {
        const web = await startWeb({ auth: true, basicAuth: false, oauth: true });
        t.teardown(() => stopProcess(web.proc));

        const anonymous = await fetch(`${web.base}/rest-api/v1/state/${STATE}`, {
            headers: { Accept: 'application/json' },
            redirect: 'manual',
        });
        t.equal(anonymous.status, 401, 'a script without credentials: 401, not the login page');
        t.match(anonymous.headers.get('content-type') ?? '', /json/, 'as JSON');
        t.match(await anonymous.json(), { error: String }, 'with an error text');
        t.match(anonymous.headers.get('www-authenticate') ?? '', /^Bearer /, 'saying where to get a token');
        const browser = await fetch(`${web.base}/rest-api/v1/state/${STATE}`, {
            headers: { Accept: 'text/html' },
            redirect: 'manual',
        });
        t.equal(browser.status, 302, "a browser still goes to web's login page");

        const viewer = { Authorization: `Bearer ${await webToken(web, 'viewer', 'v')}` };
        t.equal(
            (await fetch(`${web.base}/rest-api/v1/state/${STATE}`, { headers: viewer })).status,
            200,
            "a reader's token reads",
        );
        const refused = await fetch(`${web.base}/rest-api/v1/state/${STATE}`, {
            method: 'PATCH',
            body: JSON.stringify({ val: 111 }),
            headers: { ...viewer, 'Content-Type': 'application/json' },
        });
        t.equal(refused.status, 403, 'and may not write');
        t.not(await stored(), 111, 'nothing written');

        const admin = { Authorization: `Bearer ${await webToken(web, 'admin', 'iobroker')}` };
        const patch = await fetch(`${web.base}/rest-api/v1/state/${STATE}`, {
            method: 'PATCH',
            body: JSON.stringify({ val: 112 }),
            headers: { ...admin, 'Content-Type': 'application/json' },
        });
        t.equal(patch.status, 200, `an administrator's token writes JSON: ${await patch.clone().text()}`);
        t.equal(await stored(), 112);
        const forged = await fetch(`${web.base}/rest-api/v1/state/${STATE}`, {
            headers: { Authorization: 'Bearer not-a-token', Accept: 'application/json' },
            redirect: 'manual',
        });
        t.equal(forged.status, 401, 'a made-up token is refused by web');
    },
);

void t.test(
    "every kind of route under /rest-api/ on web's server, checked against the document, and web's stop ends what waits",
    async t => {
        const web = await startWeb({ auth: false });
        // answers under /rest-api/ are checked against the document served in this mode, like the standalone ones
        const doc = await fetch(`${web.base}/rest-api/api-docs/openapi.json`).then(json);
        checkers.set(web.port, new ResponseChecker(doc as Record<string, unknown>, '/rest-api'));
        t.teardown(async () => {
            checkers.delete(web.port);
            await stopProcess(web.proc);
        });
        const get = (path: string, init?: RequestInit) => checkedFetch(web.base + path, init);
        await iob.storage.states.setStateAsync(STATE, { val: 2, ack: true });

        t.equal(await (await get(`/rest-api/v1/state/${STATE}/plain`)).text(), '2', 'a plain read');
        t.equal((await json(await get(`/rest-api/v1/object/${STATE}`)))._id, STATE, 'objects');
        const missing = await get('/rest-api/v1/state/0_userdata.0.nothing');
        t.equal(missing.status, 404, 'JSON errors too');
        t.match(await json(missing), { error: String });

        // the browser rules hold on web's port too (web's CORS stays web's)
        const webHost = web.base.slice('http://'.length);
        let raw = await rawRequest(`${web.base}/rest-api/v1/state/${STATE}?value=7`, {
            headers: { Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site' },
        });
        t.equal(raw.status, 403, 'a write from a foreign page');
        raw = await rawRequest(`${web.base}/rest-api/v1/state/${STATE}`, {
            headers: { Host: 'evil.example', Origin: 'http://evil.example', 'Sec-Fetch-Site': 'same-origin' },
        });
        t.equal(raw.status, 403, 'a rebound host name');
        raw = await rawRequest(`${web.base}/rest-api/v1/state/${STATE}`, {
            headers: { Origin: `http://${webHost}`, 'Sec-Fetch-Site': 'same-origin' },
        });
        t.equal(raw.headers['x-content-type-options'], 'nosniff', 'nosniff');
        t.equal(await stored(), 2, 'nothing written');

        const spec = await json(await get('/rest-api/api-docs/swagger.json'));
        t.same(
            spec.servers?.map((s: { url: string }) => s.url),
            ['/rest-api'],
            'OpenAPI servers carry the prefix',
        );
        const outside = await fetch(`${web.base}/v1/state/${STATE}`);
        t.notOk((await outside.text()).includes('"val"'), `nothing outside the prefix (web answers ${outside.status})`);
        t.equal((await iob.storage.states.getStateAsync('rest-api.0.info.extension'))?.val, true, 'info.extension set');

        // web stopping unloads the extension: a waiting poll is told, and the flag is cleared
        await get(`/rest-api/v1/state/${STATE}/subscribe?sid=unload&method=polling`);
        const pending = get('/rest-api/v1/polling?sid=unload&timeout=10000').then(r => r.text());
        await new Promise(r => setTimeout(r, 300));
        await stopProcess(web.proc);
        t.same(JSON.parse(await pending), { disconnect: true }, 'unload ends pending polls');
        t.equal(
            (await iob.storage.states.getStateAsync('rest-api.0.info.extension'))?.val,
            false,
            'info.extension cleared',
        );
    },
);
