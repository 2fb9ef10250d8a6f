/*
 * Web-extension mode: the extension module loaded the way the ioBroker web adapter loads it
 * (test/support/web-host.ts), on a real http server, against real storage.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { PROJECT_ROOT } from '../scripts/embedded-storage';
import { stopProcess } from '../scripts/stop-process';
import { startIobroker, type IobFixture } from './support/iobroker';
import { freePort } from './support/ports';
import { rawRequest } from './support/raw-request';
import { checkedFetch, checkers, ResponseChecker } from './support/response-check';

let iob: IobFixture;
const webDir = mkdtempSync(join(tmpdir(), 'rest-api-web-'));
writeFileSync(join(webDir, 'io-package.json'), JSON.stringify({ common: { name: 'web', version: '9.1.0' }, native: {} }));
writeFileSync(join(webDir, 'package.json'), JSON.stringify({ name: 'iobroker.web', version: '9.1.0' }));

t.before(async () => {
    iob = await startIobroker();
    await iob.createState('0_userdata.0.ext', { type: 'number' }, 1);
    const host = (await iob.storage.objects.getObjectAsync('system.adapter.rest-api.0')).common.host;
    await iob.storage.objects.setObjectAsync('system.adapter.web.0', {
        _id: 'system.adapter.web.0',
        type: 'instance',
        common: { name: 'web', version: '9.1.0', enabled: true, host, mode: 'daemon' },
        native: {},
    });
    const instance = await iob.storage.objects.getObjectAsync('system.adapter.rest-api.0');
    instance.native.webInstance = 'web.0';
    await iob.storage.objects.setObjectAsync('system.adapter.rest-api.0', instance);
});
t.teardown(async () => {
    await iob?.stop();
    rmSync(webDir, { recursive: true, force: true });
});

interface WebHost {
    base: string;
    output(): string;
    proc: ChildProcess;
}

async function startWeb(auth: boolean): Promise<WebHost> {
    const port = await freePort();
    const proc = spawn(process.execPath, ['--require', join(__dirname, 'support', 'exit-with-parent.js'), join(PROJECT_ROOT, 'build', 'test', 'support', 'web-host.js'), String(port), String(auth), webDir], {
        env: { ...process.env, IOBROKER_DATA_DIR: iob.storage.dataDir },
        stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    proc.stdout!.on('data', d => (output += d));
    proc.stderr!.on('data', d => (output += d));
    const deadline = Date.now() + 20_000;
    while (!output.includes('web-host listening')) {
        if (Date.now() > deadline || proc.exitCode !== null) {
            throw new Error(`web host did not start:\n${output}`);
        }
        await new Promise(r => setTimeout(r, 50));
    }
    const base = `http://127.0.0.1:${port}`;
    // answers under /rest-api/ are checked against the document served in this mode, like the standalone ones
    const doc = await fetch(`${base}/rest-api/api-docs/openapi.json`, { headers: auth ? basic('admin', 'iobroker') : {} }).then(r => r.json());
    checkers.set(port, new ResponseChecker(doc as Record<string, unknown>, '/rest-api'));
    proc.once('exit', () => checkers.delete(port));
    return { base, output: () => output, proc };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const json = (res: Response): Promise<any> => res.json();
const basic = (user: string, pass: string) => ({ Authorization: `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}` });

t.test('every kind of route works under /rest-api/ on web\'s server', async t => {
    const web = await startWeb(false);
    t.teardown(() => stopProcess(web.proc));
    t.match(web.output(), 'web-host listening 1', 'one extension loaded');
    t.match(web.output(), '"link":"rest-api/"', 'welcome page entry');
    const get = (path: string, init?: RequestInit) => checkedFetch(web.base + path, init);

    const state = await get('/rest-api/v1/state/0_userdata.0.ext');
    t.equal(state.status, 200);
    t.equal((await json(state)).val, 1);
    const patch = await get('/rest-api/v1/state/0_userdata.0.ext', { method: 'PATCH', body: JSON.stringify({ val: 2 }), headers: { 'Content-Type': 'application/json' } });
    t.equal(patch.status, 200);
    t.equal(await (await get('/rest-api/v1/state/0_userdata.0.ext/plain')).text(), '2', 'written and read back');
    t.equal((await json(await get('/rest-api/v1/command/getState?id=0_userdata.0.ext'))).result.val, 2, 'commands');
    t.equal((await json(await get('/rest-api/v1/object/0_userdata.0.ext')))._id, '0_userdata.0.ext', 'objects');
    t.equal((await get('/rest-api/v1/state/0_userdata.0.nothing')).status, 404, 'JSON errors too');

    // the browser rules hold on web's port too (web's CORS stays web's)
    const webHost = web.base.slice('http://'.length);
    let raw = await rawRequest(`${web.base}/rest-api/v1/state/0_userdata.0.ext?value=7`, { headers: { Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site' } });
    t.equal(raw.status, 403, 'a write from a foreign page');
    raw = await rawRequest(`${web.base}/rest-api/v1/state/0_userdata.0.ext`, { headers: { Host: 'evil.example', Origin: 'http://evil.example', 'Sec-Fetch-Site': 'same-origin' } });
    t.equal(raw.status, 403, 'a rebound host name');
    raw = await rawRequest(`${web.base}/rest-api/v1/state/0_userdata.0.ext`, { headers: { Origin: `http://${webHost}`, 'Sec-Fetch-Site': 'same-origin' } });
    t.equal(raw.headers['x-content-type-options'], 'nosniff', 'nosniff');
    t.equal((await iob.storage.states.getStateAsync('0_userdata.0.ext'))?.val, 2, 'nothing written');

    const docs = await get('/rest-api/');
    t.equal(docs.status, 200);
    t.match(await docs.text(), /swagger|api/i, 'the docs page');
    const spec = await json(await get('/rest-api/api-docs/swagger.json'));
    t.same(spec.servers?.map((s: { url: string }) => s.url), ['/rest-api'], 'OpenAPI servers carry the prefix');

    t.equal(await (await get('/v1/state/0_userdata.0.ext')).text(), 'web: not found', 'nothing outside the prefix');

    // long polling under the prefix: subscribe, then a change made elsewhere arrives
    const sub = await get('/rest-api/v1/state/0_userdata.0.ext/subscribe?sid=ext1&method=polling');
    t.equal(sub.status, 200);
    const poll = get('/rest-api/v1/polling?sid=ext1&timeout=5000').then(r => r.text());
    await new Promise(r => setTimeout(r, 300));
    await iob.storage.states.setStateAsync('0_userdata.0.ext', { val: 3, ack: true, from: 'system.adapter.other.0' });
    t.same(JSON.parse(await poll).state.val, 3);

    t.equal((await iob.storage.states.getStateAsync('rest-api.0.info.extension'))?.val, true, 'info.extension set');
    // writes, reads and subscriptions went through rest-api: web's adapter object must be as web built it
    t.equal((await get(`/rest-api/v1/state/0_userdata.0.example_state?value=true`)).status, 200);
    t.same(await json(await get('/web-host/changed')), [], "mounted: no method or property of web's adapter object replaced");
    const pending = get('/rest-api/v1/polling?sid=ext1&timeout=10000').then(r => r.text());
    await new Promise(r => setTimeout(r, 300));
    await stopProcess(web.proc);
    t.same(JSON.parse(await pending), { disconnect: true }, 'unload ends pending polls');
    t.match(web.output(), 'web-host changed after unload []', "unmounted: web's adapter object as web built it");
    t.equal((await iob.storage.states.getStateAsync('rest-api.0.info.extension'))?.val, false, 'info.extension cleared');
});

t.test('with web\'s auth on, requests run as the user web authenticated', async t => {
    // js-controller reads a state only for a user who may also read objects
    await iob.createUser('viewer', { state: { read: true }, object: { read: true } }, 'v');
    const web = await startWeb(true);
    t.teardown(() => stopProcess(web.proc));
    // web's own refusal, in web's words: not an answer of this adapter, so not checked against its document
    t.equal((await fetch(`${web.base}/rest-api/v1/state/0_userdata.0.ext`)).status, 401, 'web refuses without credentials');
    const spec = await json(await checkedFetch(`${web.base}/rest-api/api-docs/openapi.json`, { headers: basic('admin', 'iobroker') }));
    t.same(spec.security, [{ basicAuth: [] }, { bearerAuth: [] }], 'the document says credentials are needed');
    const read = await checkedFetch(`${web.base}/rest-api/v1/state/0_userdata.0.ext`, { headers: basic('viewer', 'v') });
    t.equal(read.status, 200);
    const write = await checkedFetch(`${web.base}/rest-api/v1/state/0_userdata.0.ext?value=9`, { headers: basic('viewer', 'v') });
    t.equal(write.status, 403, 'not the admin default user: the viewer may not write');
    const admin = await checkedFetch(`${web.base}/rest-api/v1/state/0_userdata.0.ext?value=9`, { headers: basic('admin', 'iobroker') });
    t.equal(admin.status, 200, 'the administrator, authenticated by web, may');
    // web's login may be a session cookie that any page's request carries: writes from foreign pages are refused
    const foreign = await rawRequest(`${web.base}/rest-api/v1/state/0_userdata.0.ext?value=10`, { headers: { ...basic('admin', 'iobroker'), 'Sec-Fetch-Site': 'cross-site' } });
    t.equal(foreign.status, 403, 'a write by image or link');
    t.equal((await iob.storage.states.getStateAsync('0_userdata.0.ext'))?.val, 9, 'nothing written');
    const rebound = await rawRequest(`${web.base}/rest-api/v1/state/0_userdata.0.ext`, { headers: { ...basic('admin', 'iobroker'), Host: 'iobroker.example.net', Origin: 'https://iobroker.example.net' } });
    t.equal(rebound.status, 200, 'any host name: a rebinding page has no login for our name');
    // rest-api's own auth is off here: a request web let through without a user used to run as defaultUser (admin)
    const open = { 'x-web-host-open': '1' };
    const anonymous = await checkedFetch(`${web.base}/rest-api/v1/state/0_userdata.0.ext`, { headers: open });
    t.equal(anonymous.status, 401, 'no user from web: refused, not the default user');
    t.same(await json(anonymous), { error: 'User is required' });
    const anonymousWrite = await checkedFetch(`${web.base}/rest-api/v1/state/0_userdata.0.ext?value=5`, { headers: open });
    t.equal(anonymousWrite.status, 401, 'nor may it write');
    t.equal((await iob.storage.states.getStateAsync('0_userdata.0.ext'))?.val, 9, 'nothing written');
});

t.test('the standalone process stays down when a web instance serves it', async t => {
    // the fixture's own process goes first: js-controller refuses a second one while it is alive
    await iob.stopAdapter();
    const port = await freePort();
    const instance = await iob.storage.objects.getObjectAsync('system.adapter.rest-api.0');
    await iob.storage.objects.setObjectAsync('system.adapter.rest-api.0', { ...instance, native: { ...instance.native, port } });
    const proc = spawn(process.execPath, [join(PROJECT_ROOT, 'build', 'src', 'main.js')], { env: { ...process.env, IOBROKER_DATA_DIR: iob.storage.dataDir }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    proc.stdout!.on('data', d => (output += d));
    proc.stderr!.on('data', d => (output += d));
    const code = await new Promise<number | null>(resolve => proc.on('exit', resolve));
    t.equal(code, 11, `ADAPTER_REQUESTED_TERMINATION\n${output}`);
    t.equal(await checkedFetch(`http://127.0.0.1:${port}/name`).then(() => 'open', () => 'closed'), 'closed', 'no own port');
});
