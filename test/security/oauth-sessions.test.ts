/*
 * OAuth tokens end with their user, tried as an attacker would: a token kept after the administrator
 * disabled the account, changed its password or deleted it; a name taken again; one refresh token
 * raced on two instances; someone else's token extended. Two instances run in this process on one
 * real database (test/support/in-process.ts), so a check on one and a use on the other are covered.
 */
import t from 'tap';
import { sleep, until } from '../support/until';
import { createUser } from '../support/iobroker';
import { startInProcess, type InProcessApp, type InProcessHost } from '../support/in-process';
import { basic } from '../support/raw-request';

const ADMIN = basic('admin', 'iobroker');
const bearer = (token: string) => ({ headers: { Authorization: `Bearer ${token}` } });

let host: InProcessHost;
let zero: InProcessApp;
let one: InProcessApp;
t.before(async () => {
    host = await startInProcess();
    zero = await host.app({ auth: true });
    one = await host.app({ auth: true }, 'rest-api.1');
});
t.teardown(async () => {
    await zero?.close();
    await one?.close();
    await host?.stop();
});

interface Tokens {
    access_token: string;
    refresh_token: string;
}

async function login(app: InProcessApp, username: string, password: string): Promise<Tokens> {
    const res = await app.request('/oauth/token', { method: 'POST', body: { grant_type: 'password', username, password } });
    if (res.status !== 200) {
        throw new Error(`login of ${username} failed: ${res.status} ${res.text}`);
    }
    return res.json as Tokens;
}

const refresh = (app: InProcessApp, token: string) => app.request('/oauth/token', { method: 'POST', body: { grant_type: 'refresh_token', refresh_token: token } });
const use = async (app: InProcessApp, token: string) => (await app.request('/v1/command/getVersion', bearer(token))).status;


/** Both instances refuse the access token (401), soon after the change. */
async function refusedEverywhere(token: string): Promise<boolean> {
    return until(async () => (await use(zero, token)) === 401 && (await use(one, token)) === 401, 3000);
}

t.test('a disabled user: its access token is refused on both instances, its refresh token too, also after it is enabled again', async t => {
    await createUser(host.storage, 'disabled_soon', { object: { read: true } }, 'pw-disabled');
    const tokens = await login(zero, 'disabled_soon', 'pw-disabled');
    t.same([await use(zero, tokens.access_token), await use(one, tokens.access_token)], [200, 200], 'valid on both before');

    await host.storage.objects.extendObjectAsync('system.user.disabled_soon', { common: { enabled: false } });
    t.ok(await refusedEverywhere(tokens.access_token), 'access token refused on both instances');
    const res = await refresh(one, tokens.refresh_token);
    t.same([res.status, res.json.error], [400, 'invalid_grant'], 'refresh refused');

    await host.storage.objects.extendObjectAsync('system.user.disabled_soon', { common: { enabled: true } });
    await sleep(200);
    t.equal(await use(zero, tokens.access_token), 401, 'enabling the user again does not revive the old session');
    t.equal((await refresh(zero, tokens.refresh_token)).status, 400);
});

t.test('a disabled user whose refresh token is used first: refused too', async t => {
    await createUser(host.storage, 'disabled_quiet', { object: { read: true } }, 'pw-quiet');
    const tokens = await login(one, 'disabled_quiet', 'pw-quiet');
    await host.storage.objects.extendObjectAsync('system.user.disabled_quiet', { common: { enabled: false } });
    // one attempt only: a refresh that succeeded would rotate, and a retry would then fail for that reason
    await sleep(300);
    const res = await refresh(zero, tokens.refresh_token);
    t.same([res.status, res.json.error], [400, 'invalid_grant'], 'no new pair for a disabled user');
    t.equal(await use(one, tokens.access_token), 401);
});

t.test('a changed password ends the sessions of the old one, on both instances', async t => {
    await createUser(host.storage, 'changes_pw', { object: { read: true } }, 'old-pw');
    const tokens = await login(zero, 'changes_pw', 'old-pw');
    const res = await one.request('/v1/command/changePassword', { method: 'POST', body: { user: 'changes_pw', pass: 'new-pw' }, headers: ADMIN });
    t.equal(res.status, 200);
    t.ok(await refusedEverywhere(tokens.access_token), 'access token refused on both instances');
    t.match((await refresh(zero, tokens.refresh_token)).json, { error: 'invalid_grant' }, 'refresh refused');
    const fresh = await login(one, 'changes_pw', 'new-pw');
    t.equal(await use(zero, fresh.access_token), 200, 'a login with the new password works');
});

t.test('a password set behind our back (js-controller setPassword) is seen too', async t => {
    await createUser(host.storage, 'reset_pw', { object: { read: true } }, 'before');
    const tokens = await login(one, 'reset_pw', 'before');
    await host.adapter.setPasswordAsync('reset_pw', 'after');
    t.ok(await refusedEverywhere(tokens.access_token));
    t.equal((await refresh(one, tokens.refresh_token)).status, 400);
});

t.test('a deleted user: refused; a new user of the same name does not inherit the session', async t => {
    await createUser(host.storage, 'deleted', { object: { read: true } }, 'same-pw');
    const used = await login(zero, 'deleted', 'same-pw');
    await host.storage.objects.delObjectAsync('system.user.deleted');
    t.ok(await refusedEverywhere(used.access_token), 'refused on both instances once deleted');
    t.equal((await refresh(one, used.refresh_token)).status, 400, 'refresh refused');

    // never used between the delete and the new user: only the binding to the old one can refuse it
    await createUser(host.storage, 'renamed', { object: { read: true } }, 'same-pw');
    const idle = await login(one, 'renamed', 'same-pw');
    await host.storage.objects.delObjectAsync('system.user.renamed');
    await createUser(host.storage, 'renamed', { object: { read: true } }, 'same-pw');
    await sleep(300);
    t.same([await use(zero, idle.access_token), await use(one, idle.access_token)], [401, 401], 'the new user of that name does not get the old session');
    t.equal((await refresh(zero, idle.refresh_token)).status, 400, 'nor its refresh token');
    const own = await login(zero, 'renamed', 'same-pw');
    t.equal(await use(one, own.access_token), 200, 'the new user logs in by itself');
});

t.test('one refresh token, two concurrent refreshes: exactly one new pair', async t => {
    await createUser(host.storage, 'racer', { object: { read: true } }, 'race-pw');
    for (const [first, second, label] of [
        [zero, one, 'two instances'],
        [zero, zero, 'one instance'],
    ] as const) {
        const tokens = await login(zero, 'racer', 'race-pw');
        const answers = await Promise.all([refresh(first, tokens.refresh_token), refresh(second, tokens.refresh_token)]);
        const won = answers.filter(a => a.status === 200);
        t.equal(won.length, 1, `${label}: one refresh wins`);
        t.same(
            answers.filter(a => a.status !== 200).map(a => [a.status, a.json.error]),
            [[400, 'invalid_grant']],
            `${label}: the other is invalid_grant`,
        );
        t.equal(await use(one, won[0].json.access_token), 200, `${label}: the winner's token works`);
        t.equal(await use(zero, tokens.access_token), 401, `${label}: the old access token is gone`);
    }
});

t.test('updateTokenExpiration: only the token\'s own user or an administrator', async t => {
    await createUser(host.storage, 'token_owner', { object: { read: true } }, 'owner-pw');
    await createUser(host.storage, 'mallory', {}, 'mallory-pw');
    const victim = await login(zero, 'token_owner', 'owner-pw');
    const path = `/v1/command/updateTokenExpiration?accessToken=${victim.access_token}`;
    let res = await one.request(path, { headers: basic('mallory', 'mallory-pw') });
    t.equal(res.status, 403, 'another user may not extend it');
    t.match(res.json, { error: 'permissionError' });
    const theirs = await login(one, 'mallory', 'mallory-pw');
    res = await zero.request(path, bearer(theirs.access_token));
    t.equal(res.status, 403, 'nor with an OAuth token of its own');
    res = await one.request(path, bearer(victim.access_token));
    t.same([res.status, res.json], [200, { error: null, result: true }], 'its own user may');
    res = await zero.request(path, { headers: ADMIN });
    t.same([res.status, res.json], [200, { error: null, result: true }], 'an administrator may');
});
