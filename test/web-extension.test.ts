/*
 * Web's extension contract where the real web adapter cannot show it (test/real-web.test.ts covers
 * the routes through the real web): web's adapter object inspected in web's process, and a request
 * that reaches the extension without a user. The module is loaded the way web loads it
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
import { checkedFetch, checkers, ResponseChecker } from './support/response-check';

let iob: IobFixture;
const webDir = mkdtempSync(join(tmpdir(), 'rest-api-web-'));
writeFileSync(
    join(webDir, 'io-package.json'),
    JSON.stringify({ common: { name: 'web', version: '9.1.0' }, native: {} }),
);
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
    const proc = spawn(
        process.execPath,
        [
            '--require',
            join(__dirname, 'support', 'exit-with-parent.js'),
            join(PROJECT_ROOT, 'build', 'test', 'support', 'web-host.js'),
            String(port),
            String(auth),
            webDir,
        ],
        {
            env: { ...process.env, IOBROKER_DATA_DIR: iob.storage.dataDir },
            stdio: ['ignore', 'pipe', 'pipe'],
        },
    );
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
    const doc = await fetch(`${base}/rest-api/api-docs/openapi.json`, {
        headers: auth ? basic('admin', 'iobroker') : {},
    }).then(r => r.json());
    checkers.set(port, new ResponseChecker(doc as Record<string, unknown>, '/rest-api'));
    proc.once('exit', () => checkers.delete(port));
    return { base, output: () => output, proc };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const json = (res: Response): Promise<any> => res.json();
const basic = (user: string, pass: string) => ({
    Authorization: `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`,
});

t.test("web's adapter object is left as web built it, mounted and unmounted", async t => {
    const web = await startWeb(false);
    t.teardown(() => stopProcess(web.proc));
    t.match(web.output(), 'web-host listening 1', 'one extension loaded');
    t.match(web.output(), '"link":"rest-api/"', 'welcome page entry');
    const get = (path: string, init?: RequestInit) => checkedFetch(web.base + path, init);
    // writes, reads and subscriptions go through rest-api, which shares web's adapter object
    t.equal((await get('/rest-api/v1/state/0_userdata.0.ext?value=2')).status, 200);
    t.equal((await get('/rest-api/v1/state/0_userdata.0.ext/subscribe?sid=ext1&method=polling')).status, 200);
    t.same(
        await json(await get('/web-host/changed')),
        [],
        "mounted: no method or property of web's adapter object replaced",
    );
    await stopProcess(web.proc);
    t.match(web.output(), 'web-host changed after unload []', "unmounted: web's adapter object as web built it");
});

t.test('a request web passes on without a user is refused, never run as the default user', async t => {
    const web = await startWeb(true);
    t.teardown(() => stopProcess(web.proc));
    // rest-api's own auth is off here: such a request used to run as defaultUser (admin)
    const open = { 'x-web-host-open': '1' };
    const anonymous = await checkedFetch(`${web.base}/rest-api/v1/state/0_userdata.0.ext`, { headers: open });
    t.equal(anonymous.status, 401, 'no user from web: refused, not the default user');
    t.same(await json(anonymous), { error: 'User is required' });
    const anonymousWrite = await checkedFetch(`${web.base}/rest-api/v1/state/0_userdata.0.ext?value=5`, {
        headers: open,
    });
    t.equal(anonymousWrite.status, 401, 'nor may it write');
    t.equal((await iob.storage.states.getStateAsync('0_userdata.0.ext'))?.val, 2, 'nothing written');
    const user = await checkedFetch(`${web.base}/rest-api/v1/state/0_userdata.0.ext`, {
        headers: basic('admin', 'iobroker'),
    });
    t.equal(user.status, 200, 'the same request with the user web authenticated is answered');
});

t.test('the standalone process stays down when a web instance serves it', async t => {
    // the fixture's own process goes first: js-controller refuses a second one while it is alive
    await iob.stopAdapter();
    const port = await freePort();
    const instance = await iob.storage.objects.getObjectAsync('system.adapter.rest-api.0');
    await iob.storage.objects.setObjectAsync('system.adapter.rest-api.0', {
        ...instance,
        native: { ...instance.native, port },
    });
    const proc = spawn(process.execPath, [join(PROJECT_ROOT, 'build', 'src', 'main.js')], {
        env: { ...process.env, IOBROKER_DATA_DIR: iob.storage.dataDir },
        stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    proc.stdout!.on('data', d => (output += d));
    proc.stderr!.on('data', d => (output += d));
    const code = await new Promise<number | null>(resolve => proc.on('exit', resolve));
    t.equal(code, 11, `ADAPTER_REQUESTED_TERMINATION\n${output}`);
    t.equal(
        await checkedFetch(`http://127.0.0.1:${port}/name`).then(
            () => 'open',
            () => 'closed',
        ),
        'closed',
        'no own port',
    );
});
