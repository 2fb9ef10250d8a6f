/*
 * Scoped API tokens against real storage and the app in this process: created, listed and revoked by
 * their users; each scope dimension allowing and refusing; listings, long polls, URL hooks, event
 * streams and history filtered; expiry, revocation, a deleted user, a restart; never in logs or error
 * bodies; guessing damped like passwords.
 */
import { createHash } from 'node:crypto';
import t from 'tap';
import { sleep, until } from '../support/until';
import { startHookReceiver, type HookReceiver } from '../support/hook-receiver';
import { createState, createUser, type RequestOptions } from '../support/iobroker';
import { startInProcess, type InProcessApp, type InProcessHost } from '../support/in-process';
import { captureLog } from '../support/log-capture';
import { basic } from '../support/raw-request';
import { openSse } from '../support/sse-client';

let host: InProcessHost;
let app: InProcessApp;
let logs: () => string;
/** A fresh app with this config, as a restart of the adapter gave. */
async function configure(native: Record<string, unknown>): Promise<void> {
    await app?.close();
    app = await host.app(native);
}
let hooks: HookReceiver;
const ADMIN = basic('admin', 'iobroker');
const IN = 'scope.0.in';
const OUT = 'scope.0.out';
const W = 'scope.0.writable';
/** Secrets handed out in this file: none may ever show up in the adapter's log. */
const secrets: string[] = [];

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
const write = (id: string, val: ioBroker.StateValue) => host.storage.states.setStateAsync(id, { val, ack: true, from: 'system.adapter.test.0' });
const val = async (id: string) => (await host.storage.states.getStateAsync(id))?.val;


interface Created {
    id: string;
    name: string;
    token: string;
    scope: unknown;
    expires: number | null;
    user: string;
}

async function createToken(body: Record<string, unknown>, login: Record<string, string> = ADMIN): Promise<Created> {
    const res = await app.request('/v1/tokens', { method: 'POST', headers: login, body });
    if (res.status !== 201) {
        throw new Error(`POST /v1/tokens: ${res.status} ${res.text}`);
    }
    secrets.push(res.json.token);
    return res.json;
}

const as = (token: string, path: string, options: RequestOptions = {}) => app.request(path, { ...options, headers: { ...options.headers, ...bearer(token) } });

t.before(async () => {
    host = await startInProcess();
    logs = captureLog(host.adapter);
    await configure({ auth: true });
    // the app logs nothing at start in this process (the process's start lines were the log's first ones)
    await app.request('/v1/command/log?text=log%20capture%20probe&level=info', { headers: ADMIN });
    hooks = await startHookReceiver();
    for (const id of [`${IN}.a`, `${IN}.b`, `${OUT}.a`, `${W}.a`]) {
        await createState(host.storage, id, { type: 'number' }, 1);
    }
    await createUser(host.storage, 'reader', { object: { read: true, list: true }, state: { read: true, list: true } });
    // private to the administrator, inside every pattern a reader's token might name
    await host.storage.objects.setObjectAsync(`${IN}.private`, {
        _id: `${IN}.private`,
        type: 'state',
        common: { name: 'private', type: 'number', role: 'value', read: true, write: true },
        native: {},
        acl: { owner: 'system.user.admin', ownerGroup: 'system.group.administrator', object: 0x600, state: 0x600 },
    });
    await write(`${IN}.private`, 7);
});
t.teardown(async () => {
    hooks?.close();
    await app?.close();
    await host?.stop();
});

t.test('a token is created for the caller, shown once, stored as a SHA-256 hash, listed without secrets', async t => {
    const created = await createToken({ name: 'evcc', expiresInDays: 365, scope: { read: [`${IN}.*`], write: [`${W}.*`], commands: ['getState'] } });
    t.match(created, { id: /^[A-Za-z0-9]{16}$/, name: 'evcc', user: 'system.user.admin', token: /^restapi_0_[A-Za-z0-9]{16}_[\w-]{43}$/ });
    t.same(created.scope, { read: [`${IN}.*`], write: [`${W}.*`], commands: ['getState'] });
    t.ok(Math.abs(created.expires! - (Date.now() + 365 * 24 * 3600 * 1000)) < 60_000, 'expires in 365 days');

    const obj = await host.storage.objects.getObjectAsync(`rest-api.0.tokens.${created.id}`);
    const secret = created.token.split('_').slice(3).join('_');
    t.equal(obj.native.hash, createHash('sha256').update(secret).digest('hex'), 'the hash of the secret is stored');
    t.notOk(JSON.stringify(obj).includes(secret), 'the secret itself is stored nowhere');

    const list = await app.request('/v1/tokens', { headers: ADMIN });
    t.equal(list.status, 200);
    const entry = list.json.find((e: { id: string }) => e.id === created.id);
    t.match(entry, { name: 'evcc', user: 'system.user.admin', expires: created.expires, lastUsed: null });
    t.notOk(list.text.includes(secret), 'the list never shows a secret');
    t.notOk(list.text.includes(obj.native.hash), 'nor a hash');

    const forever = await createToken({ name: 'no expiry', expiresInDays: 0 });
    t.same([forever.expires, forever.scope], [null, null], 'expiresInDays 0: never; no scope: the full rights of the user');
});

t.test('bad requests to /v1/tokens are 4xx with a JSON error', async t => {
    const post = (body: unknown) => app.request('/v1/tokens', { method: 'POST', headers: ADMIN, body });
    let res = await post({});
    t.equal(res.status, 422, 'no name');
    t.match(res.json.error, /name/);
    res = await post({ name: 'x', expiresInDays: -1 });
    t.equal(res.status, 422, 'a negative lifetime');
    res = await post({ name: 'x', expiresInDays: 1.5 });
    t.equal(res.status, 422, 'a fraction of a day');
    res = await post({ name: 'x', scope: { read: ['a.*'], admin: true } });
    t.equal(res.status, 422, 'an unknown scope field');
    res = await post({ name: 'x', scope: { commands: ['getState', 'rmRf'] } });
    t.equal(res.status, 422, 'an unknown command');
    t.match(res.json.error, /rmRf/, 'named in the error');
    res = await post({ name: 'x', scope: { read: ['a b'] } });
    t.equal(res.status, 422, 'a pattern with a space');
    res = await app.request('/v1/tokens', { method: 'POST', headers: { ...ADMIN, 'Content-Type': 'application/json' }, raw: '{"name":' });
    t.equal(res.status, 400, 'broken JSON');
    res = await app.request('/v1/tokens', { method: 'POST', body: { name: 'x' } });
    t.equal(res.status, 401, 'no login');
    res = await app.request('/v1/tokens/doesnotexist0000', { method: 'DELETE', headers: ADMIN });
    t.same([res.status, res.json.error], [404, 'API token not found']);
    res = await app.request(`/v1/tokens/${'x'.repeat(200)}`, { method: 'DELETE', headers: ADMIN });
    t.ok(res.status === 404 || res.status === 422, `an overlong id is refused (${res.status})`);
});

t.test('at most 100 tokens per user: then 409 until one is revoked', async t => {
    await createUser(host.storage, 'collector', { state: { read: true } });
    const login = basic('collector', 'secret');
    let last: Created | undefined;
    for (let i = 0; i < 100; i++) {
        last = await createToken({ name: `t${i}` }, login);
    }
    let res = await app.request('/v1/tokens', { method: 'POST', headers: login, body: { name: 'one too many' } });
    t.same([res.status, res.json.error], [409, 'At most 100 API tokens per user; revoke one first']);
    res = await app.request('/v1/tokens', { method: 'POST', headers: ADMIN, body: { name: 'another user' } });
    t.equal(res.status, 201, 'other users are not affected');
    secrets.push(res.json.token);
    t.equal((await app.request(`/v1/tokens/${last!.id}`, { method: 'DELETE', headers: login })).status, 204);
    res = await app.request('/v1/tokens', { method: 'POST', headers: login, body: { name: 'room again' } });
    t.equal(res.status, 201);
    secrets.push(res.json.token);
});

t.test('read scope: single reads, the comma form, listings and objects', async t => {
    const { token } = await createToken({ name: 'reads', scope: { read: [`${IN}.*`] } });
    let res = await as(token, `/v1/state/${IN}.a`);
    t.same([res.status, res.json.val], [200, 1], 'inside: read');
    res = await as(token, `/v1/state/${OUT}.a`);
    t.same([res.status, res.json.error], [403, 'permissionError'], 'outside: 403');
    res = await as(token, `/v1/state/${OUT}.a/plain`);
    t.equal(res.status, 403, 'plain too');
    res = await as(token, `/v1/state/${IN}.a,${OUT}.a`);
    t.equal(res.status, 403, 'a list with one id outside');
    res = await as(token, `/v1/object/${IN}.a`);
    t.same([res.status, res.json._id], [200, `${IN}.a`]);
    res = await as(token, `/v1/object/${OUT}.a`);
    t.equal(res.status, 403);

    res = await as(token, '/v1/states?filter=scope.0.*');
    t.equal(res.status, 200);
    t.same(Object.keys(res.json).sort(), [`${IN}.a`, `${IN}.b`, `${IN}.private`], 'the administrator token sees only its patterns');
    res = await as(token, '/v1/objects?filter=scope.0.*&type=state');
    t.same(Object.keys(res.json).sort(), [`${IN}.a`, `${IN}.b`, `${IN}.private`]);
    res = await as(token, '/v1/states?filter=scope.0.*&limit=1');
    t.same(Object.keys(res.json), [`${IN}.a`], 'pages as well');
    res = await as(token, '/v1/states/query', { method: 'POST', body: { ids: [`${IN}.a`, `${OUT}.a`] } });
    t.match(res.json, { [`${IN}.a`]: { val: 1 }, [`${OUT}.a`]: { status: 403 } }, 'bulk read: per id');
});

t.test('the user\'s own rights still apply under a scope', async t => {
    const { token } = await createToken({ name: 'reader wide', scope: { read: ['*'] } }, basic('reader', 'secret'));
    let res = await as(token, `/v1/state/${IN}.a`);
    t.equal(res.status, 200);
    res = await as(token, `/v1/state/${IN}.private`);
    // a user's ACL refusal reads as an unknown id (4.0.2 looks it up by name then); never the value
    t.same([res.status, res.json.val], [404, undefined], 'a scope never widens the user');
    res = await as(token, '/v1/states?filter=scope.0.*');
    t.notOk(`${IN}.private` in res.json, 'nor in a listing');
    res = await as(token, `/v1/state/${IN}.a`, { method: 'PATCH', body: { val: 2 } });
    t.equal(res.status, 403, 'the reader may not write, token or not');
});

t.test('write scope: PATCH, GET-write, toggle, bulk, objects', async t => {
    const { token } = await createToken({ name: 'writes', scope: { read: [`${IN}.*`], write: [`${W}.*`] } });
    let res = await as(token, `/v1/state/${W}.a`, { method: 'PATCH', body: { val: 5 } });
    t.same([res.status, res.json.val], [200, 5], 'a write inside: it may write what it may not read');
    t.equal(await val(`${W}.a`), 5);
    res = await as(token, `/v1/state/${W}.a`);
    t.equal(res.status, 403, 'but not read it back');
    res = await as(token, `/v1/state/${IN}.a`, { method: 'PATCH', body: { val: 9 } });
    t.equal(res.status, 403, 'readable is not writable');
    res = await as(token, `/v1/state/${OUT}.a?value=9`);
    t.equal(res.status, 403, 'GET-write outside');
    res = await as(token, `/v1/state/${OUT}.a/toggle`);
    t.equal(res.status, 403, 'toggle outside');
    t.equal(await val(`${OUT}.a`), 1, 'nothing written outside');
    t.equal(await val(`${IN}.a`), 1);
    res = await as(token, '/v1/states', { method: 'PATCH', body: { [`${W}.a`]: 6, [`${OUT}.a`]: 6 } });
    t.equal(res.status, 207);
    t.match(res.json, { [`${W}.a`]: { val: 6 }, [`${OUT}.a`]: { status: 403 } });
    t.equal(await val(`${OUT}.a`), 1);
    res = await as(token, `/v1/object/${W}.a`, { method: 'PUT', body: { common: { desc: 'changed' } } });
    t.equal(res.status, 200, 'object merge inside');
    res = await as(token, `/v1/object/${OUT}.a`, { method: 'PUT', body: { common: { desc: 'changed' } } });
    t.equal(res.status, 403, 'object merge outside');
    res = await as(token, `/v1/object/${OUT}.new`, { method: 'POST', body: { type: 'state', common: {} } });
    t.equal(res.status, 403, 'object create outside');
    res = await as(token, `/v1/object/${OUT}.a`, { method: 'DELETE' });
    t.equal(res.status, 403, 'object delete outside');
    t.ok(await host.storage.objects.getObjectAsync(`${OUT}.a`), 'still there');
    t.notOk((await host.storage.objects.getObjectAsync(`${OUT}.a`)).common.desc, 'unchanged');
});

t.test('command scope: listed commands only, and their ids inside the patterns', async t => {
    const { token } = await createToken({ name: 'commands', scope: { read: [`${IN}.*`], write: [`${W}.*`], commands: ['getState', 'setState', 'delObjects'] } });
    let res = await as(token, `/v1/command/getState?id=${IN}.a`);
    t.same([res.status, res.json.result?.val], [200, 1]);
    res = await as(token, `/v1/command/getState?id=${OUT}.a`);
    t.equal(res.status, 403, 'a listed command, an id outside');
    res = await as(token, `/v1/command/getObject?id=${IN}.a`);
    t.equal(res.status, 403, 'a command not listed');
    res = await as(token, `/v1/command/setState`, { method: 'POST', body: { id: `${W}.a`, state: 11 } });
    t.equal(res.status, 200);
    t.equal(await val(`${W}.a`), 11);
    res = await as(token, `/v1/command/setState`, { method: 'POST', body: { id: `${IN}.a`, state: 11 } });
    t.equal(res.status, 403, 'setState outside the write patterns');
    res = await as(token, `/v1/command/delObjects?id=scope.0`);
    t.equal(res.status, 403, 'a recursive delete reaching beyond the write patterns');
    t.ok(await host.storage.objects.getObjectAsync(`${IN}.a`), 'nothing deleted');
    res = await as(token, '/v1/command/getVersion');
    t.equal(res.status, 403, 'even a command anyone may call, when it is not listed');
});

t.test('routes outside the scope model are refused; /metrics needs a metrics read', async t => {
    const { token } = await createToken({ name: 'narrow', scope: { read: [`${IN}.*`] } });
    for (const path of ['/v1/file/admin/index.html', '/v1/dir/admin', '/v1/sendto/admin.0?command=x', '/log', '/metrics']) {
        const res = await as(token, path);
        t.same([res.status, res.json?.error], [403, 'permissionError'], path);
    }
    const metrics = await createToken({ name: 'prometheus', scope: { read: ['metrics'] } });
    const res = await as(metrics.token, '/metrics');
    t.equal(res.status, 200);
    t.match(res.text, /restapi_http_requests_total/);
    t.equal((await as(metrics.token, `/v1/state/${IN}.a`)).status, 403, 'a metrics read reads no state');
});

t.test('history: an id outside the read patterns is refused before anything is asked', async t => {
    const { token } = await createToken({ name: 'history', scope: { read: [`${IN}.*`], write: [`${W}.*`] } });
    let res = await as(token, `/v1/getHistory/${OUT}.a`);
    t.same([res.status, res.json.error], [403, 'permissionError']);
    res = await as(token, '/v1/getHistory', { method: 'POST', body: { id: `${OUT}.a` } });
    t.equal(res.status, 403);
    res = await as(token, `/v1/addHistory/${OUT}.a?val=1`);
    t.equal(res.status, 403, 'storing needs the write patterns');
    res = await as(token, `/v1/history?ids=${IN}.a,${OUT}.a`);
    t.same([res.status, res.json.error], [403, 'permissionError'], 'several ids: one outside refuses them all');
    res = await as(token, '/v1/history', { method: 'POST', body: { ids: [IN + '.a', OUT + '.a'], format: 'csv' } });
    t.equal(res.status, 403, 'as CSV too');
});

t.test('long polling, URL hooks and event streams deliver only what the scope may read', async t => {
    const { token } = await createToken({ name: 'events', scope: { read: [`${IN}.*`] } });
    let res = await as(token, '/v1/states/subscribe?sid=tok', { method: 'POST', body: { method: 'polling', pattern: 'scope.0.*' } });
    t.same(res.json, { result: 'OK' });
    res = await as(token, `/v1/state/${OUT}.a/subscribe?sid=tok&method=polling`);
    t.equal(res.status, 403, 'a single id outside cannot be subscribed');
    res = await as(token, `/v1/states/subscribe?url=${encodeURIComponent(hooks.url)}`, { method: 'POST', body: { pattern: 'scope.0.*' } });
    t.equal(res.status, 200, 'hook registered');
    const sse = await openSse(`${await app.serve()}/v1/events?pattern=scope.0.*`, bearer(token));
    t.equal(sse.status, 200);
    // a session of the same user with the same sid, logged in by password: its own, unfiltered
    await app.request('/v1/states/subscribe?sid=tok', { method: 'POST', headers: ADMIN, body: { method: 'polling', pattern: 'scope.0.*' } });
    await sleep(200);
    hooks.received = [];

    await write(`${OUT}.a`, 100);
    await write(`${IN}.a`, 101);

    const polled: Array<{ id: string }> = [];
    while (!polled.some(e => e.id === `${IN}.a`)) {
        res = await as(token, '/v1/polling?sid=tok&batch=true&timeout=2000');
        polled.push(...(res.text ? JSON.parse(res.text) : []));
    }
    t.same(polled.map(e => e.id), [`${IN}.a`], 'polling: the event outside never arrives');
    const admin = await app.request('/v1/polling?sid=tok&batch=true&timeout=2000', { headers: ADMIN });
    t.ok(JSON.parse(admin.text).some((e: { id: string }) => e.id === `${OUT}.a`), 'the password session of the same sid is another session');

    const streamed: string[] = [];
    while (!streamed.includes(`${IN}.a`)) {
        const event = await sse.nextEvent(3000);
        streamed.push(JSON.parse(event.data!).id);
    }
    t.same(streamed, [`${IN}.a`], 'event stream: only inside');
    sse.close();

    t.ok(await until(() => hooks.received.some(d => d.body.includes(`${IN}.a`))));
    await sleep(200);
    t.same(
        hooks.received.map(d => JSON.parse(d.body).id),
        [`${IN}.a`],
        'hook: only inside',
    );
    await as(token, `/v1/states/subscribe?url=${encodeURIComponent(hooks.url)}`, { method: 'DELETE' });
});

t.test('token routes are not reachable with a token, scoped or not', async t => {
    const full = await createToken({ name: 'full rights' });
    let res = await as(full.token, `/v1/state/${OUT}.a`);
    t.equal(res.status, 200, 'no scope: the user\'s full rights');
    res = await as(full.token, '/v1/tokens', { method: 'POST', body: { name: 'child' } });
    t.same([res.status, res.json.error], [403, 'permissionError'], 'cannot mint');
    res = await as(full.token, '/v1/tokens');
    t.equal(res.status, 403, 'cannot list');
    res = await as(full.token, `/v1/tokens/${full.id}`, { method: 'DELETE' });
    t.equal(res.status, 403, 'cannot revoke, not even itself');
    res = await as(full.token, '/v1/command/getState?id=scope.0.in.a');
    t.equal(res.status, 200, 'no scope: every command the user may call');
});

t.test('revoked, expired, or its user gone: refused at once; lastUsed is kept', async t => {
    const first = await createToken({ name: 'to revoke', scope: { read: [`${IN}.*`] } });
    t.equal((await as(first.token, `/v1/state/${IN}.a`)).status, 200);
    t.ok(await until(async () => (await app.request('/v1/tokens', { headers: ADMIN })).json.find((e: { id: string }) => e.id === first.id)?.lastUsed > 0), 'lastUsed set');
    let res = await app.request(`/v1/tokens/${first.id}`, { method: 'DELETE', headers: ADMIN });
    t.same([res.status, res.text], [204, '']);
    res = await as(first.token, `/v1/state/${IN}.a`);
    t.same([res.status, res.json.error], [401, 'Invalid API token'], 'revoked: refused on the next request');
    t.notOk(res.text.includes(first.token), 'the error never repeats the token');

    const second = await createToken({ name: 'to expire', expiresInDays: 1 });
    t.equal((await as(second.token, `/v1/state/${IN}.a`)).status, 200);
    const id = `rest-api.0.tokens.${second.id}`;
    // its first use writes lastUsed (read, merge, write): let that land before the record is edited below
    t.ok(await until(async () => (await host.storage.objects.getObjectAsync(id)).native.lastUsed > 0), 'lastUsed written');
    // a day passing, as the stored expiry says it has
    const obj = await host.storage.objects.getObjectAsync(id);
    obj.native.expires = Date.now() - 1000;
    await host.storage.objects.setObjectAsync(id, obj);
    t.ok(await until(async () => (await as(second.token, `/v1/state/${IN}.a`)).status === 401, 2000), 'expired: refused');

    await createUser(host.storage, 'leaver', { state: { read: true }, object: { read: true } });
    const third = await createToken({ name: 'leaver token' }, basic('leaver', 'secret'));
    t.equal((await as(third.token, `/v1/state/${IN}.a`)).status, 200);
    const others = await app.request('/v1/tokens', { headers: basic('leaver', 'secret') });
    t.same(others.json.map((e: { id: string }) => e.id), [third.id], 'a user lists only its own tokens');
    res = await app.request(`/v1/tokens/${second.id}`, { method: 'DELETE', headers: basic('leaver', 'secret') });
    t.equal(res.status, 404, 'nor revokes another user\'s');
    await host.storage.objects.delObjectAsync('system.user.leaver');
    t.ok(await until(async () => (await as(third.token, `/v1/state/${IN}.a`)).status === 401, 2000), 'user deleted: refused');
    t.ok(await until(async () => !(await host.storage.objects.getObjectAsync(`rest-api.0.tokens.${third.id}`))), 'and its token deleted');
});

t.test('wrong tokens are damped per address like passwords; never logged', async t => {
    const good = await createToken({ name: 'survivor', scope: { read: [`${IN}.*`] } });
    const forged = good.token.slice(0, -4) + 'AAAA';
    const url = `/v1/state/${IN}.a`;
    t.equal((await app.request(url, { headers: bearer(good.token), remoteAddress: '127.0.0.79' })).status, 200, 'the integration in use');
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
        statuses.push((await app.request(url, { headers: bearer(forged), remoteAddress: '127.0.0.77' })).status);
    }
    t.same(statuses.slice(0, 4), [401, 401, 401, 401]);
    t.equal(statuses.at(-1), 429, 'then locked');
    const locked = await app.request(url, { headers: bearer(forged), remoteAddress: '127.0.0.77' });
    t.equal(locked.status, 429, 'the guessing address keeps getting 429 for wrong tokens');
    t.ok(Number(locked.headers['retry-after']) > 0);
    t.notOk(locked.text.includes(forged));
    // a forgotten script behind the same proxy must not lock out every integration there: a token in use passes
    // (a locked address gets no database read, so a token nobody used lately waits like a wrong one)
    const right = await app.request(url, { headers: bearer(good.token), remoteAddress: '127.0.0.77' });
    t.equal(right.status, 200, 'a valid token from that address still works');
    const elsewhere = await app.request(url, { headers: bearer(forged), remoteAddress: '127.0.0.78' });
    t.equal(elsewhere.status, 401, 'another address is not locked');
    const password = await app.request(url, { headers: ADMIN, remoteAddress: '127.0.0.77' });
    t.equal(password.status, 200, 'password logins from that address are a separate account of failures');

    const logged = logs();
    t.ok(logged.length > 0, 'the adapter logged');
    for (const secret of secrets) {
        t.notOk(logged.includes(secret.split('_').slice(3).join('_')), 'no token secret in the log');
    }
});

t.test('a record written by a user who may write objects is no token: forging one fails', async t => {
    await createUser(host.storage, 'forger', { object: { read: true, list: true, write: true, create: true }, state: { read: true } });
    const secret = 'A'.repeat(43);
    const id = 'Forged0000000000';
    const record = {
        type: 'config',
        common: { name: 'API token forged' },
        native: { apiToken: true, hash: createHash('sha256').update(secret).digest('hex'), user: 'system.user.admin', name: 'forged', created: Date.now(), expires: null, lastUsed: null, seal: '00'.repeat(32) },
    };
    const put = await app.request(`/v1/object/rest-api.0.tokens.${id}x`, { method: 'POST', headers: basic('forger', 'secret'), body: record });
    t.equal(put.status, 403, "the adapter's own records are for administrators to write");
    // written straight into the database instead: the seal, not the ACL, is what refuses it
    await host.storage.objects.setObjectAsync(`rest-api.0.tokens.${id}`, { _id: `rest-api.0.tokens.${id}`, ...record });
    const res = await as(`restapi_0_${id}_${secret}`, `/v1/state/${OUT}.a`);
    t.same([res.status, res.json.error], [401, 'API token expired, revoked or its user disabled'], 'an unsealed record is refused');

    const real = await createToken({ name: 'to widen', scope: { read: [`${IN}.*`] } });
    const ref = `rest-api.0.tokens.${real.id}`;
    const obj = await host.storage.objects.getObjectAsync(ref);
    obj.native.scope = { read: ['*'] };
    await host.storage.objects.setObjectAsync(ref, obj);
    t.ok(await until(async () => (await as(real.token, `/v1/state/${IN}.a`)).status === 401, 2000), 'a widened scope breaks the seal: refused');
});

t.test('no token may manage logins or tokens, scoped or not', async t => {
    const full = await createToken({ name: 'unscoped admin' });
    let res = await as(full.token, '/v1/command/changePassword', { method: 'POST', body: { user: 'admin', pass: 'taken-over' } });
    t.equal(res.status, 403, 'changePassword');
    res = await as(full.token, '/v1/command/addUser', { method: 'POST', body: { user: 'backdoor', pass: 'x' } });
    t.equal(res.status, 403, 'addUser');
    res = await as(full.token, '/v1/object/system.user.admin', { method: 'PUT', body: { common: { enabled: true } } });
    t.equal(res.status, 403, 'a user object');
    res = await as(full.token, `/v1/object/rest-api.0.tokens.${full.id}`, { method: 'PUT', body: { native: { expires: null } } });
    t.equal(res.status, 403, 'a token record');
    res = await as(full.token, '/v1/command/delObjects?id=rest-api.0');
    t.equal(res.status, 403, 'a recursive delete over the token records');
    res = await as(full.token, '/v1/command/setObject', { method: 'POST', body: { id: 'system.group.user', obj: { type: 'group', common: { name: 'x', members: [] }, native: {} } } });
    t.equal(res.status, 403, 'a group object');
    t.equal((await app.request('/v1/state/system.adapter.rest-api.0.alive', { headers: ADMIN })).status, 200, 'the password still works');
    t.ok(await host.storage.objects.getObjectAsync(`rest-api.0.tokens.${full.id}`), 'the token record is untouched');
    res = await as(full.token, `/v1/state/${IN}.a`);
    t.equal(res.status, 200, 'everything else with the user\'s full rights');
});

t.test('names, missing ids, enums and the system secret do not leak past a scope', async t => {
    await host.storage.objects.extendObjectAsync(`${OUT}.a`, { common: { name: 'Outside thing' } });
    await host.storage.objects.setObjectAsync('enum.rooms.kitchen', {
        _id: 'enum.rooms.kitchen',
        type: 'enum',
        common: { name: 'Kitchen', members: [`${IN}.a`, `${OUT}.a`] },
        native: {},
    });
    await host.storage.objects.setObjectAsync('enum.functions.light', { _id: 'enum.functions.light', type: 'enum', common: { name: 'Light', members: [`${IN}.a`] }, native: {} });
    const { token } = await createToken({ name: 'leaks', scope: { read: [`${IN}.*`, 'enum.rooms.*'], commands: ['getObject', 'getCompactSystemConfig'] } });
    let res = await as(token, '/v1/state/Outside%20thing');
    t.equal(res.status, 403, 'a name of an id outside');
    t.notOk(res.text.includes(OUT), 'without naming that id');
    res = await as(token, '/v1/object/scope.0.out.nothing');
    t.equal(res.status, 403, 'a missing id outside is 403, like an existing one');
    res = await as(token, '/v1/object/enum.rooms.kitchen');
    t.same(res.json.common.members, [`${IN}.a`], 'enum members outside the scope are left out');
    res = await as(token, '/v1/command/getObject?id=enum.rooms.kitchen');
    t.same(res.json.result?.common.members ?? res.json.common?.members, [`${IN}.a`], 'also through a command');
    res = await as(token, '/v1/objects?filter=enum.rooms.*&type=enum');
    t.same(res.json['enum.rooms.kitchen'].common.members, [`${IN}.a`], 'and in listings');
    res = await as(token, `/v1/objects?filter=${IN}.*&type=state`);
    t.same(Object.keys(res.json[`${IN}.a`].enums ?? {}), ['enum.rooms.kitchen'], 'a listing\'s enums map keeps only enums inside');
    const adminList = await app.request(`/v1/objects?filter=${IN}.*&type=state`, { headers: ADMIN });
    t.same(Object.keys(adminList.json[`${IN}.a`].enums).sort(), ['enum.functions.light', 'enum.rooms.kitchen'], 'where the login sees both');
    res = await as(token, '/v1/command/getCompactSystemConfig');
    t.equal(res.status, 200);
    t.notOk(res.json.result?.native?.secret, 'a scoped administrator token is no administrator for the system secret');
    const admin = await app.request('/v1/command/getCompactSystemConfig', { headers: ADMIN });
    t.ok(admin.json.result.native.secret, 'the administrator login gets it');
});

t.test('a revoke drops the token\'s URL hooks', async t => {
    const created = await createToken({ name: 'hooked', scope: { read: [`${IN}.*`] } });
    let res = await as(created.token, `/v1/state/${IN}.b/subscribe?url=${encodeURIComponent(hooks.url + '/revoked')}`, { method: 'POST' });
    t.equal(res.status, 200);
    res = await app.request(`/v1/tokens/${created.id}`, { method: 'DELETE', headers: ADMIN });
    t.equal(res.status, 204);
    t.ok(await until(async () => !String((await host.storage.states.getStateAsync('rest-api.0.hooks'))?.val ?? '').includes('/revoked')), 'gone from the stored hooks');
});

t.test('tokens survive a restart; switched off they are refused and /v1/tokens is gone', async t => {
    const kept = await createToken({ name: 'kept', scope: { read: [`${IN}.*`] } });
    await configure({ auth: true });
    let res = await as(kept.token, `/v1/state/${IN}.a`);
    t.equal(res.status, 200, 'after a restart');
    t.equal((await as(kept.token, `/v1/state/${OUT}.a`)).status, 403, 'its scope too');
    await configure({ auth: true, apiTokens: false });
    res = await as(kept.token, `/v1/state/${IN}.a`);
    t.equal(res.status, 401, 'apiTokens off: not accepted');
    res = await app.request('/v1/tokens', { headers: ADMIN });
    t.equal(res.status, 404, 'nor created');
    await configure({ auth: true, apiTokens: true });
    t.equal((await as(kept.token, `/v1/state/${IN}.a`)).status, 200, 'on again: the same token works');
});
