/*
 * The security review, made executable. test/auth/matrix.test.ts already sends every documented
 * operation without, with wrong and with insufficient credentials on HTTP and HTTPS; this file covers
 * what lies outside that table (undocumented paths and methods, the event stream, cookies, malformed
 * credentials), outgoing requests to local addresses, names that try to leave their area, secrets in
 * logs and error bodies, and CORS.
 */
import { createServer, type Server } from 'node:http';
import { lookup } from 'node:dns/promises';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import t from 'tap';
import { createState, createUser, startIobroker, type IobFixture } from './support/iobroker';
import { startInProcess, type InProcessApp, type InProcessHost } from './support/in-process';
import { basic } from './support/raw-request';
import { socketRequest, type SocketAnswer } from './support/raw-socket';
import { until } from './support/until';

const ADMIN = basic('admin', 'iobroker');

let host: InProcessHost;
let app: InProcessApp;
/** The loopback port `send` talks to: the in-process app's, or the spawned adapter's in the log test. */
let port = 0;
/** A fresh app with this config on a real loopback server, as a restart of the adapter gave. */
async function configure(native: Record<string, unknown> = {}): Promise<void> {
    await app?.close();
    app = await host.app({ auth: true, checkInterval: 0, ...native });
    port = Number(new URL(await app.serve()).port);
}
let iob: IobFixture | undefined;
let target: Server;
let targetPort = 0;
/** Every request the local target server received: proof that a refused URL was never called. */
let hits: string[] = [];
const outside = mkdtempSync(join(tmpdir(), 'rest-api-outside-'));

/** A raw request (paths are sent byte for byte), as admin unless `headers` say otherwise. */
function send(method: string, path: string, options: { headers?: Record<string, string>; body?: string | Buffer; anonymous?: boolean; from?: string } = {}): Promise<SocketAnswer> {
    const headers = { ...(options.anonymous ? {} : ADMIN), ...(options.body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...options.headers };
    return socketRequest(port, { method, path, headers, body: options.body, localAddress: options.from }, 15_000);
}

/** decodeURIComponent that leaves broken escapes as they are. */
function decoded(name: string): string {
    try {
        return decodeURIComponent(name);
    } catch {
        return name;
    }
}

const text = (answer: SocketAnswer): string => answer.body.toString('utf8');
const json = (answer: SocketAnswer): any => JSON.parse(text(answer) || 'null');

t.before(async () => {
    target = createServer((req, res) => {
        hits.push(req.url ?? '');
        res.writeHead(200, { 'Content-Type': 'text/plain' }).end('local target reached');
    });
    await new Promise<void>(resolve => target.listen(0, '127.0.0.1', resolve));
    targetPort = (target.address() as { port: number }).port;
    host = await startInProcess();
    await createUser(host.storage, 'writer', { state: { read: true, write: true } }, 'writer-password');
    await createState(host.storage, '0_userdata.0.sec', { type: 'number' }, 1);
    await configure();
});
// a crashed or killed test process must not leave the adapter behind
process.once('exit', () => {
    if (iob?.pid) {
        process.kill(iob.pid, 'SIGKILL');
    }
});
t.teardown(async () => {
    await iob?.stop();
    await app?.close();
    await host?.stop();
    target?.close();
    rmSync(outside, { recursive: true, force: true });
});

t.test('with auth on, paths and methods outside the documented table refuse anonymous calls', async t => {
    const paths = [
        '/log',
        '/log/file1/iobroker.log',
        '/log/somehost/file1/iobroker.log',
        '/v1/events?pattern=*',
        '/v1/events?pattern=0_userdata.0.*&objects=*',
        '/v1/polling?sid=anon&connect',
        '/v1/polling?sid=anon&timeout=1000',
        '/v1/nothing/here',
        '/v1/command/noSuchCommand',
        '/v1/command/getVersion/',
        '/V1/COMMAND/GETVERSION',
        '//v1//command//getVersion',
        '/v1/state/0_userdata.0.sec%2Fx',
        '/v1/binary/0_userdata.0.sec',
        '/api-docs/openapi.json',
        '/api-docs/swagger.json',
    ];
    for (const path of paths) {
        for (const method of ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']) {
            const res = await send(method, path, { anonymous: true, body: method === 'GET' || method === 'HEAD' ? undefined : '{}' });
            const label = `${method} ${path}`;
            t.notOk(res.stream, `${label}: no event stream`);
            if (/^\/+v1/i.test(path) || method === 'GET' || method === 'HEAD') {
                t.equal(res.status, 401, label);
            } else {
                // outside /v1 a method a path does not offer is 405 before credentials: no data either way
                t.ok(res.status === 401 || res.status === 405, `${label}: ${res.status}`);
            }
            if (method !== 'HEAD') {
                t.type(json(res)?.error, 'string', `${label}: JSON error`);
            }
        }
        for (const method of ['OPTIONS', 'PROPFIND', 'TRACE']) {
            const res = await send(method, path, { anonymous: true });
            t.ok(res.status >= 400 && res.status < 500, `${method} ${path}: ${res.status}`);
        }
    }
    const page = await send('GET', '/api-doc/', { anonymous: true });
    t.equal(page.status, 200, 'the docs page itself is public (README), it holds no data');
    t.notMatch(text(page), /system\.user\.|"paths"/, 'the page does not embed the document');
});

t.test('credentials come only from the Authorization header or user/pass in the query', async t => {
    const token = json(await send('POST', '/oauth/token', { anonymous: true, headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'grant_type=password&username=admin&password=iobroker' }));
    t.type(token.access_token, 'string');
    let res = await send('GET', '/v1/command/getVersion', { anonymous: true, headers: { Authorization: `Bearer ${token.access_token}` } });
    t.equal(res.status, 200, 'the token works as Bearer');
    res = await send('GET', '/v1/command/getVersion', { anonymous: true, headers: { Cookie: `access_token=${token.access_token}` } });
    t.equal(res.status, 401, 'the access_token cookie alone is not accepted (no cross-site requests riding on it)');
    res = await send('GET', `/v1/command/getVersion?access_token=${token.access_token}&token=${token.access_token}`, { anonymous: true });
    t.equal(res.status, 401, 'nor a token in the query');
    const malformed = ['Basic', 'Basic !!!', `Basic ${Buffer.from('admin').toString('base64')}`, `Basic ${Buffer.from(':').toString('base64')}`, 'Bearer', 'Bearer ', 'Digest x', 'Basic ' + 'A'.repeat(10_000), `Basic ${Buffer.from('someone:iobroker\u0000x').toString('base64')}`];
    for (const header of malformed) {
        res = await send('GET', '/v1/command/getVersion', { anonymous: true, headers: { Authorization: header }, from: '127.0.4.1' });
        t.ok(res.status === 401 || res.status === 429, `${JSON.stringify(header.slice(0, 30))}: ${res.status}`);
        t.type(json(res).error, 'string');
    }
    res = await send('GET', '/v1/command/getVersion?user=admin', { anonymous: true });
    t.equal(res.status, 401, 'a user without pass');
    res = await send('GET', '/v1/command/getVersion?pass=iobroker', { anonymous: true });
    t.equal(res.status, 401, 'a pass without user');
});

t.test('httpGet refuses this machine and link-local; URL hooks refuse link-local and metadata only', async t => {
    const p = targetPort;
    const loopback = [
        `http://127.0.0.1:${p}/`,
        `http://127.0.0.2:${p}/`,
        `http://[::1]:${p}/`,
        `http://[::ffff:127.0.0.1]:${p}/`,
        `http://[::ffff:7f00:1]:${p}/`,
        `http://[0:0:0:0:0:ffff:127.0.0.1]:${p}/`,
        `http://2130706433:${p}/`,
        `http://0x7f000001:${p}/`,
        `http://0177.0.0.1:${p}/`,
        `http://127.1:${p}/`,
        `http://0:${p}/`,
        `http://[::]:${p}/`,
        `http://localhost:${p}/`,
        `http://LOCALHOST:${p}/`,
        `http://sub.localhost:${p}/`,
    ];
    const linkLocal = [
        'http://169.254.169.254/latest/meta-data/',
        'http://[::ffff:169.254.169.254]/latest/meta-data/',
        'http://[fe80::1]/',
        'http://[fd00:ec2::254]/latest/meta-data/',
    ];
    // names that resolve to a loopback address here: this machine's own name (as on most Linux hosts)
    for (const name of [hostname(), 'localhost.', 'ip6-localhost']) {
        const address = await lookup(name).catch(() => undefined);
        if (address && /^127\.|^::1$/.test(address.address)) {
            loopback.push(`http://${name}:${p}/`);
        }
    }
    hits = [];
    for (const url of [...loopback, ...linkLocal]) {
        const res = await send('GET', `/v1/command/httpGet?url=${encodeURIComponent(url)}`);
        t.equal(res.status, 403, `httpGet ${url}`);
        t.match(json(res).error, /the option httpGetAllowLocal allows it/);
    }
    t.same(hits, [], 'httpGet never called the local server');
    for (const url of linkLocal) {
        const hook = await send('POST', '/v1/states/subscribe', { body: JSON.stringify({ url, pattern: '0_userdata.0.*' }) });
        t.equal(hook.status, 403, `hook ${url}`);
        t.match(json(hook).error, /the option hooksAllowLinkLocal allows it/);
        const single = await send('POST', '/v1/state/0_userdata.0.sec/subscribe', { body: JSON.stringify({ url, method: 'PUT' }) });
        t.equal(single.status, 403, `single-state hook ${url}`);
    }
    // hooks may reach this machine: the forms that reach the target's loopback listener register
    for (const url of loopback) {
        const hook = await send('POST', '/v1/state/0_userdata.0.sec/subscribe', { body: JSON.stringify({ url }) });
        t.not(hook.status, 403, `hook to this machine is not refused: ${url}`);
        if (hook.status === 200) {
            await send('DELETE', '/v1/state/0_userdata.0.sec/subscribe', { body: JSON.stringify({ url }) });
        }
    }
    t.ok(hits.length > 0, 'hooks reached the local server');
});

t.test('names cannot leave their file area or log folder', async t => {
    const objects = host.storage.objects;
    for (const id of ['area.0', 'other.0']) {
        await objects.setObjectAsync(id, { _id: id, type: 'meta', common: { name: id, type: 'meta.user' }, native: {} });
    }
    await objects.writeFileAsync('area.0', 'inside.txt', 'INSIDE-TEXT');
    await objects.writeFileAsync('other.0', 'secret.txt', 'OTHER-SECRET');
    writeFileSync(join(outside, 'outside.txt'), 'OUTSIDE-SECRET');
    const dataDir = host.storage.dataDir;
    // what `setup first` seeded (e.g. admin.admin with the dev workspace's admin) is not the attack's doing
    const areasBefore = readdirSync(join(dataDir, 'files')).sort();
    const absolute = join(outside, 'outside.txt');
    const fromFiles = relative(join(dataDir, 'files', 'area.0'), absolute);
    const traversals = [
        '../other.0/secret.txt',
        '..%2Fother.0%2Fsecret.txt',
        '%2e%2e/other.0/secret.txt',
        '%2E%2E%2Fother.0%2Fsecret.txt',
        '..%5Cother.0%5Csecret.txt',
        '..\\other.0\\secret.txt',
        '%252e%252e%252fother.0%252fsecret.txt',
        '..%c0%afother.0%c0%afsecret.txt',
        '....//other.0/secret.txt',
        '.%2e/other.0/secret.txt',
        'x/../../other.0/secret.txt',
        '../../objects.jsonl',
        '../../../objects.jsonl',
        fromFiles.split('/').map(encodeURIComponent).join('/'),
        fromFiles.split('/').map(encodeURIComponent).join('%2F'),
        absolute,
        encodeURIComponent(absolute),
        `/${absolute}`,
        '%2Fetc%2Fpasswd',
        '/etc/passwd',
        'C:%5CWindows%5Cwin.ini',
    ];
    const leaks = /OTHER-SECRET|OUTSIDE-SECRET|"system\.user\.admin"|root:x:0/;
    const q = (name: string): string => (/%/.test(name) ? name : encodeURIComponent(name));
    for (const name of traversals) {
        const reads = [
            send('GET', `/v1/file/area.0/${name}`),
            send('GET', `/v1/dir/area.0/${name}`),
            send('GET', `/v1/command/readFile?adapter=area.0&fileName=${q(name)}`),
            send('GET', `/v1/command/readFile64?adapter=area.0&fileName=${q(name)}`),
            send('GET', `/v1/command/readDir?adapter=area.0&dirName=${q(name)}`),
            send('GET', `/v1/command/fileExists?adapter=area.0&fileName=${q(name)}`),
        ];
        for (const res of await Promise.all(reads)) {
            t.notMatch(text(res), leaks, `read ${name}: ${res.status}`);
            t.ok(res.status < 500, `read ${name}: no 5xx`);
        }
        await send('POST', `/v1/file/area.0/${name}`, { headers: { 'Content-Type': 'application/octet-stream' }, body: 'PWNED' });
        await send('POST', '/v1/command/writeFile64', { body: JSON.stringify({ adapter: 'area.0', fileName: decoded(name), data64: Buffer.from('PWNED').toString('base64') }) });
        await send('DELETE', `/v1/file/area.0/${name}`);
        await send('POST', '/v1/command/deleteFile', { body: JSON.stringify({ adapter: 'area.0', name: decoded(name) }) });
    }
    // the area itself given as a path
    for (const area of ['..', '%2e%2e', 'area.0%2F..', 'area.0%2F..%2Fother.0', '..%2Fother.0', 'area.0%5C..%5Cother.0']) {
        const res = await send('GET', `/v1/command/readFile?adapter=${area}&fileName=other.0%2Fsecret.txt`);
        t.notMatch(text(res), leaks, `adapter=${area}: ${res.status}`);
        const listed = await send('GET', `/v1/command/readDir?adapter=${area}&dirName=`);
        t.notMatch(text(listed), /secret\.txt|objects\.jsonl/, `readDir adapter=${area}: ${listed.status}`);
        const removed = await send('POST', '/v1/command/deleteFolder', { body: JSON.stringify({ adapter: decoded(area), name: '' }) });
        t.ok(removed.status < 500, `deleteFolder adapter=${area}: ${removed.status}`);
    }
    t.equal(Buffer.from((await objects.readFile('other.0', 'secret.txt')).file).toString(), 'OTHER-SECRET', 'the other area is untouched');
    t.equal(readFileSync(absolute, 'utf8'), 'OUTSIDE-SECRET', 'the file outside the storage is untouched');
    const pwned: string[] = [];
    const scan = (dir: string): void => {
        for (const entry of readdirSync(dir)) {
            const path = join(dir, entry);
            if (statSync(path).isDirectory()) {
                if (path !== join(dataDir, 'files', 'area.0')) {
                    scan(path);
                }
            } else if (/PWNED/.test(readFileSync(path, 'latin1'))) {
                pwned.push(relative(dataDir, path));
            }
        }
    };
    scan(dataDir);
    scan(outside);
    t.same(pwned.filter(p => !/^(objects|states)\.jsonl$|^backup/.test(p)), [], 'written bytes landed only in the area itself');
    t.same(readdirSync(join(dataDir, 'files')).sort(), areasBefore, 'no new area appeared');

    // log files: a transport folder with a sibling folder next to it
    const logs = join(outside, 'logs');
    mkdirSync(join(logs, 'app'), { recursive: true });
    mkdirSync(join(logs, 'private'), { recursive: true });
    writeFileSync(join(logs, 'app', 'iobroker.2026-03-03.log'), 'visible log');
    writeFileSync(join(logs, 'private', 'secret.log'), 'LOG-SECRET');
    const file = join(dataDir, 'iobroker.json');
    const config = JSON.parse(readFileSync(file, 'utf8'));
    config.log.transport.app = { type: 'file', enabled: true, filename: join(logs, 'app', 'iobroker'), fileext: '.log' };
    writeFileSync(file, JSON.stringify(config, null, 2));
    t.equal((await send('GET', '/log/app/iobroker.2026-03-03.log')).status, 200, 'the log folder itself is readable');
    const logNames = ['../private/secret.log', '..%2Fprivate%2Fsecret.log', '%2e%2e/private/secret.log', '..%5Cprivate%5Csecret.log', '..\\private\\secret.log', '%252e%252e%252fprivate%252fsecret.log', encodeURIComponent(join(logs, 'private', 'secret.log')), `/${join(logs, 'private', 'secret.log')}`, '%2Fetc%2Fpasswd'];
    for (const name of logNames) {
        const res = await send('GET', `/log/app/${name}`);
        t.notMatch(text(res), /LOG-SECRET|root:x:0/, `log ${name}: ${res.status}`);
        t.ok(res.status === 404 || res.status === 422, `log ${name}: 404 or 422 (${res.status})`);
        t.match(res.headers['content-type'], /^application\/json/);
    }
});

t.test('passwords, tokens and hook secrets appear in no log line and no error body', async t => {
    // the log lines are what the adapter process writes: this test runs a spawned adapter
    const ownDataDir = process.env.IOBROKER_DATA_DIR;
    const fixture = await startIobroker({ native: { auth: true, checkInterval: 0 } });
    // its storage set the data dir of this process to its own: the in-process adapter keeps reading ours
    process.env.IOBROKER_DATA_DIR = ownDataDir;
    iob = fixture;
    const served = port;
    port = fixture.port;
    t.teardown(async () => {
        port = served;
        iob = undefined;
        await fixture.stop();
    });
    // debug logging: nothing secret may show up even in the most talkative log (switched at run time, as admin does)
    await fixture.storage.states.setStateAsync('system.adapter.rest-api.0.logLevel', { val: 'debug', ack: false, from: 'system.adapter.test.0' });
    await until(() => /Loglevel changed from "\w+" to "debug"/.test(fixture.logs()));
    await fixture.createState('0_userdata.0.sec', { type: 'number' }, 1);
    const secrets = ['Pw-Basic-8f3a1', 'Pw-Query-77c2e', 'Pw-Form-4d9b0', 'Rt-Guess-a1b2c3', 'Tk-Guess-d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3', 'Pw-New-5e6f7', 'Pw-User-9a8b7', 'whsec_U2VjcmV0LUhvb2stS2V5LTk5'];
    const bodies: string[] = [];
    // its own client address, so the wrong passwords here do not lock out the right ones later
    const from = '127.0.3.1';
    const keep = async (answer: Promise<SocketAnswer>): Promise<SocketAnswer> => {
        const res = await answer;
        bodies.push(text(res));
        return res;
    };
    const form = (body: string) => ({ anonymous: true, from, headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body });
    await keep(send('GET', '/v1/command/log?text=debug-probe-line&level=debug'));
    await keep(send('GET', '/v1/command/getVersion', { anonymous: true, from, headers: basic('admin', secrets[0]) }));
    await keep(send('GET', `/v1/command/getVersion?user=admin&pass=${secrets[1]}`, { anonymous: true, from }));
    await keep(send('POST', '/oauth/token', form(`grant_type=password&username=admin&password=${secrets[2]}`)));
    await keep(send('GET', `/oauth/token?grant_type=password&username=admin&password=${secrets[2]}`, { anonymous: true }));
    await keep(send('POST', '/oauth/token', form(`grant_type=refresh_token&refresh_token=${secrets[3]}`)));
    await keep(send('GET', '/v1/command/getVersion', { anonymous: true, headers: { Authorization: `Bearer ${secrets[4]}` } }));
    await keep(send('GET', `/v1/command/updateTokenExpiration?accessToken=${secrets[4]}`));

    // real tokens, used and revoked
    const issued = json(await keep(send('POST', '/oauth/token', form('grant_type=password&username=admin&password=iobroker'))));
    await keep(send('GET', '/v1/command/getVersion', { anonymous: true, headers: { Authorization: `Bearer ${issued.access_token}` } }));
    const refreshed = json(await keep(send('POST', '/oauth/token', form(`grant_type=refresh_token&refresh_token=${issued.refresh_token}`))));
    await keep(send('GET', '/v1/command/getVersion', { anonymous: true, headers: { Authorization: `Bearer ${issued.access_token}` } }));
    await keep(send('POST', '/oauth/revoke', form(`token=${refreshed.refresh_token}`)));
    secrets.push(issued.access_token, issued.refresh_token, refreshed.access_token, refreshed.refresh_token);

    // passwords as command parameters, right and wrong
    await keep(send('POST', '/v1/command/addUser', { body: JSON.stringify({ user: 'fresh', pass: secrets[6] }) }));
    await keep(send('POST', '/v1/command/changePassword', { body: JSON.stringify({ user: 'fresh', pass: secrets[5] }) }));
    await keep(send('POST', '/v1/command/changePassword', { body: JSON.stringify({ user: 'nobody-here', pass: secrets[5] }) }));
    await keep(send('POST', '/v1/command/addUser', { body: JSON.stringify({ user: 'fresh', pass: secrets[6] }) }));
    await keep(send('GET', '/v1/command/getVersion', { anonymous: true, headers: basic('fresh', secrets[5]) }));

    // hook secrets: refused (local target), then registered and delivered
    await keep(send('POST', '/v1/states/subscribe', { body: JSON.stringify({ url: 'http://169.254.169.254/hook', pattern: '0_userdata.0.*', secret: secrets[7] }) }));
    hits = [];
    const hookUrl = `http://127.0.0.1:${targetPort}/hook`;
    const registered = await keep(send('POST', '/v1/state/0_userdata.0.sec/subscribe', { body: JSON.stringify({ url: hookUrl, secret: secrets[7] }) }));
    t.equal(registered.status, 200, 'registered');
    await fixture.storage.states.setStateAsync('0_userdata.0.sec', { val: 2, ack: true, from: 'system.adapter.test.0' });
    for (let i = 0; i < 100 && hits.length < 2; i++) {
        await new Promise(r => setTimeout(r, 20));
    }
    t.ok(hits.length >= 2, 'the hook was checked and called');
    await keep(send('GET', `/v1/states/subscribe?url=${encodeURIComponent(hookUrl)}`));
    await keep(send('POST', '/v1/state/0_userdata.0.sec/subscribe', { body: JSON.stringify({ url: 'http://127.0.0.1:1/dead', secret: secrets[7] }) }));
    await keep(send('DELETE', '/v1/state/0_userdata.0.sec/subscribe', { body: JSON.stringify({ url: hookUrl }) }));

    const logs = fixture.logs();
    t.match(logs, /debug-probe-line/, 'the adapter logs at debug level');
    for (const secret of secrets) {
        t.notOk(logs.includes(secret), `not in the log: ${secret.slice(0, 8)}…`);
        t.notOk(bodies.some(b => b.includes(secret) && !/"access_token"|"refresh_token"/.test(b)), `in no error body: ${secret.slice(0, 8)}…`);
    }
    const hookSecret = secrets[7];
    t.notOk(bodies.some(b => b.includes(hookSecret) || b.includes(hookSecret.slice(6))), 'the hook secret is never answered back');
});

t.test('CORS never grants credentials and never mirrors an origin outside the allow-list', async t => {
    const preflight = (origin: string) =>
        send('OPTIONS', '/v1/state/0_userdata.0.sec', { anonymous: true, headers: { Origin: origin, 'Access-Control-Request-Method': 'PATCH', 'Access-Control-Request-Headers': 'authorization,content-type,cookie' } });
    for (const origin of ['https://evil.example', 'null', 'http://127.0.0.1:1']) {
        let res = await preflight(origin);
        t.equal(res.status, 204, `preflight from ${origin}`);
        t.equal(res.headers['access-control-allow-origin'], '*', 'the wildcard, never the origin itself');
        t.notOk(res.headers['access-control-allow-credentials'], 'no credentials mode');
        res = await send('GET', '/v1/state/0_userdata.0.sec', { headers: { Origin: origin } });
        t.equal(res.headers['access-control-allow-origin'], '*');
        t.notOk(res.headers['access-control-allow-credentials']);
        res = await send('GET', '/v1/state/0_userdata.0.sec', { anonymous: true, headers: { Origin: origin } });
        t.equal(res.status, 401);
        t.notOk(res.headers['access-control-allow-credentials'], 'not on errors either');
    }
    await configure({ corsOrigins: 'https://dash.example' });
    for (const origin of ['https://evil.example', 'null', 'https://dash.example.evil.example', 'https://evil.example/https://dash.example', 'https://DASH.example']) {
        const res = await preflight(origin);
        t.notOk(res.headers['access-control-allow-origin'], `${origin} is not allowed`);
        t.notOk(res.headers['access-control-allow-credentials']);
    }
    const allowed = await preflight('https://dash.example');
    t.equal(allowed.headers['access-control-allow-origin'], 'https://dash.example');
    t.match(allowed.headers.vary, /Origin/);
    t.notOk(allowed.headers['access-control-allow-credentials'], 'an allowed origin gets no credentials mode either');
    await configure({ corsOrigins: '' });
});

t.test('with httpGetAllowLocal the same local targets are reached by httpGet', async t => {
    await configure({ httpGetAllowLocal: true });
    hits = [];
    for (const url of [`http://127.0.0.1:${targetPort}/a`, `http://localhost:${targetPort}/b`, `http://[::ffff:127.0.0.1]:${targetPort}/c`]) {
        const res = await send('GET', `/v1/command/httpGet?url=${encodeURIComponent(url)}`);
        t.equal(res.status, 200, url);
    }
    t.same(hits.sort(), ['/a', '/b', '/c']);
    await configure({ httpGetAllowLocal: false });
});
