/*
 * Every documented route and command against every kind of caller, on HTTP and on HTTPS:
 * one authentication pipeline, the 4.0.2 bodies, and the ACL for a user without rights.
 * In this process (test/support/in-process.ts): plain requests go into the app without a socket,
 * the HTTPS half through a real TLS server of the same app.
 */
import t, { type Test } from 'tap';
import type { HttpAnswer, RequestOptions } from '../support/iobroker';
import { createUser } from '../support/iobroker';
import { startInProcess, type InProcessApp, type InProcessHost } from '../support/in-process';
import { basic, rawRequest } from '../support/raw-request';

const SAMPLE: Record<string, string> = {
    stateId: 'system.adapter.rest-api.0.alive',
    objectId: '0_userdata.0.matrix',
    enumId: 'rooms',
    instance: 'nothing.0',
    file: 'matrix.txt',
    dirName: 'matrix',
    logFile: 'file1/none.log',
};

interface Operation {
    method: string;
    path: string;
    needsRight: boolean;
    /** How an API token's scope applies (`x-token-scope`): ids checked one by one, or the whole operation refused. */
    tokenScope: string;
}

function operations(doc: { paths: Record<string, Record<string, { 'x-permission'?: unknown; 'x-token-scope'?: unknown; tags?: string[]; security?: unknown[] }>> }): Operation[] {
    const ops: Operation[] = [];
    for (const [template, methods] of Object.entries(doc.paths)) {
        for (const [method, op] of Object.entries(methods)) {
            // the login routes and what is declared public (/name, inbound webhooks: their secret authenticates)
            if (op.tags?.includes('auth') || op.security?.length === 0) {
                continue;
            }
            let path = template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(SAMPLE[name] ?? 'x'));
            // a long poll that passes waits for its timeout: the shortest there is
            path += template === '/v1/polling' ? '?timeout=1000' : '';
            ops.push({ method: method.toUpperCase(), path, needsRight: !!op['x-permission'] && op['x-permission'] !== 'none', tokenScope: String(op['x-token-scope']) });
        }
    }
    return ops;
}

const HIDDEN = '0_userdata.0.matrixhidden';

let address = 0;
/** Every wrong password comes from another loopback address, so damping does not blur the answers. */
function nextAddress(): string {
    address++;
    return `127.0.${Math.floor(address / 250) + 1}.${(address % 250) + 1}`;
}

/** One request as the matrix sends it; `address`: the client's (another one for every wrong password). */
type Send = (path: string, options: RequestOptions & { address?: string }) => Promise<HttpAnswer>;

async function matrix(t: Test, send: Send): Promise<void> {
    const doc = (await send('/api-docs/openapi.json', { headers: basic('admin', 'iobroker') })).json;
    const ops = operations(doc);
    t.ok(ops.length > 100, `${ops.length} operations`);
    // the administrator's own token, narrowed to ids that do not exist
    const created = await send('/v1/tokens', { method: 'POST', headers: { ...basic('admin', 'iobroker'), 'Content-Type': 'application/json' }, raw: JSON.stringify({ name: 'matrix', scope: { read: ['nothing.*'], write: ['nothing.*'] } }) });
    t.equal(created.status, 201, 'a scoped token');
    const narrow = { Authorization: `Bearer ${created.json.token}` };
    let adminSawHidden = 0;
    let wrongAnswered = 0;
    const call = (op: Operation, headers: Record<string, string>, address?: string) =>
        send(op.path, {
            method: op.method,
            headers: { 'Content-Type': 'application/json', ...headers },
            raw: op.method === 'GET' || op.method === 'DELETE' ? undefined : '{}',
            address,
        });
    for (const op of ops) {
        const name = `${op.method} ${op.path}`;
        let res = await call(op, {});
        t.same([res.status, res.json], [401, { error: 'User is required' }], `${name}: no credentials`);
        // a user name is damped across addresses: after its fifth failure new addresses get 429 for a minute
        res = await call(op, basic('admin', 'wrong'), nextAddress());
        if (res.status !== 429) {
            wrongAnswered++;
            t.same([res.status, res.json], [401, { error: 'Invalid password or user name: system.user.admin' }], `${name}: wrong password`);
        }
        res = await call(op, basic('ghost', 'x'), nextAddress());
        t.ok(res.status === 401 || res.status === 429, `${name}: unknown user (${res.status})`);
        res = await call(op, basic('sleeper', 'secret'), nextAddress());
        t.ok(res.status === 401 || res.status === 429, `${name}: disabled user (${res.status})`);
        res = await call(op, { Authorization: 'Bearer 0123456789abcdef0123456789abcdef01234567' });
        t.same([res.status, res.json], [401, { error: 'Invalid access token: undefined' }], `${name}: unknown token`);
        res = await call(op, basic('nobody', 'secret'));
        if (op.needsRight) {
            t.same([res.status, res.json?.error], [403, 'permissionError'], `${name}: user without rights`);
        } else {
            t.not(res.status, 403, `${name}: needs no right`);
        }
        res = await call(op, basic('reader', 'secret'));
        t.notOk(res.text.includes(HIDDEN), `${name}: a user who may read and list never sees an id its ACL hides (${res.status})`);
        res = await call(op, narrow);
        t.not(res.status, 401, `${name}: a valid token authenticates`);
        t.notOk(res.text.includes(HIDDEN), `${name}: the administrator's token, scoped to nothing.*, never sees what the administrator sees (${res.status})`);
        if (op.tokenScope !== 'ids') {
            t.same([res.status, res.json?.error], [403, 'permissionError'], `${name}: refused to a token whose scope does not name it (${op.tokenScope})`);
        }
        res = await call(op, basic('admin', 'iobroker'));
        t.ok(res.status !== 401 && res.status !== 403, `${name}: admin passes (${res.status})`);
        adminSawHidden += res.text.includes(HIDDEN) ? 1 : 0;
        t.notMatch(res.text, /\n\s+at .+:\d+:\d+/, `${name}: no stack trace`);
    }
    t.ok(wrongAnswered >= 4, `a wrong password answered 401 with its message ${wrongAnswered} times before the name was damped`);
    t.ok(adminSawHidden > 3, `the administrator's login sees the hidden id in ${adminSawHidden} answers: the checks above can fail`);
    const name = await send('/name', {});
    t.equal(name.status, 200, '/name needs no credentials');
    const preflight = await send('/v1/state/x', {
        method: 'OPTIONS',
        headers: { Origin: 'https://dash.example', 'Access-Control-Request-Method': 'PATCH', 'Access-Control-Request-Headers': 'authorization,content-type' },
    });
    t.equal(preflight.status, 204, 'CORS preflights need no credentials');
    t.equal(preflight.headers['access-control-allow-headers'], 'authorization,content-type');
}

let host: InProcessHost;
let app: InProcessApp;
t.before(async () => {
    host = await startInProcess();
    const { storage } = host;
    await createUser(storage, 'nobody', {});
    // may read and list everything its ACL allows; HIDDEN is private to the administrator
    await createUser(storage, 'reader', { object: { read: true, list: true }, state: { read: true, list: true }, file: { read: true, list: true }, other: { sendto: true } });
    const acl = { owner: 'system.user.admin', ownerGroup: 'system.group.administrator', object: 0x600, state: 0x600 };
    await storage.objects.setObjectAsync(HIDDEN, { _id: HIDDEN, type: 'state', common: { name: 'hidden', type: 'number', role: 'value', read: true, write: true }, native: {}, acl });
    await storage.states.setStateAsync(HIDDEN, { val: 1, ack: true, from: 'system.adapter.test.0' });
    await createUser(storage, 'sleeper', { state: { read: true } });
    const sleeper = await storage.objects.getObjectAsync('system.user.sleeper');
    sleeper.common.enabled = false;
    await storage.objects.setObjectAsync('system.user.sleeper', sleeper);
});
t.teardown(async () => {
    await app?.close();
    await host?.stop();
});

t.test('over HTTP', async t => {
    app = await host.app({ auth: true });
    await matrix(t, (path, { address, ...options }) => app.request(path, { ...options, remoteAddress: address }));
    await app.close();
});

t.test('over HTTPS, the same pipeline and the same bodies', async t => {
    app = await host.app({ auth: true, secure: true });
    const base = await app.serve();
    t.equal(new URL(base).protocol, 'https:');
    await matrix(t, (path, { address, raw, ...options }) => rawRequest(base + path, { ...options, body: raw, localAddress: address }));
});
