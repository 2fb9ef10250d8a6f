import t from 'tap';
import { createUser } from '../support/iobroker';
import { startInProcess, type InProcessApp, type InProcessHost } from '../support/in-process';
import { basic } from '../support/raw-request';

let host: InProcessHost;
let app: InProcessApp;
/** A fresh app with this config, as a restart of the adapter gave: new sessions cache and damping. */
async function configure(native: Record<string, unknown> = {}): Promise<void> {
    await app?.close();
    app = await host.app({ auth: true, ...native });
}
t.before(async () => {
    host = await startInProcess();
    await createUser(host.storage, 'reader', { state: { read: true }, object: { read: true } }, 'readerpw');
    await configure();
});
t.teardown(async () => {
    await app?.close();
    await host?.stop();
});

const form = (fields: Record<string, string>) => ({
    method: 'POST',
    raw: new URLSearchParams(fields).toString(),
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
});
const bearer = (token: string) => ({ headers: { Authorization: `Bearer ${token}` } });
const session = (key: string): Promise<Record<string, unknown> | null> => new Promise(resolve => host.storage.states.getSession(key, (s: unknown) => resolve((s as Record<string, unknown>) ?? null)));

t.test('password grant as form, JSON and GET; the token works and sits in the ioBroker session store', async t => {
    const byForm = await app.request('/oauth/token', form({ grant_type: 'password', username: 'admin', password: 'iobroker', client_id: 'x' }));
    t.equal(byForm.status, 200);
    t.same(Object.keys(byForm.json).sort(), ['access_token', 'expires_in', 'refresh_token', 'refresh_token_expires_in', 'token_type']);
    t.match(byForm.json, { token_type: 'Bearer', expires_in: 3600, refresh_token_expires_in: 2592000 });
    t.match(byForm.json.access_token, /^[0-9a-f]{40}$/, '160 random bits');
    t.equal(byForm.headers['cache-control'], 'no-store');
    t.match(byForm.headers['set-cookie'], /^access_token=[0-9a-f]{40}; Path=\/; HttpOnly; SameSite=Strict/);
    t.match(await session(`a:${byForm.json.access_token}`), { user: 'admin', aToken: byForm.json.access_token });
    t.ok(await session(`r:${byForm.json.refresh_token}`));

    const byJson = await app.request('/oauth/token', { method: 'POST', body: { grant_type: 'password', username: 'reader', password: 'readerpw' } });
    t.equal(byJson.status, 200);
    const byGet = await app.request('/oauth/token?grant_type=password&username=admin&password=iobroker');
    t.equal(byGet.status, 200);

    let res = await app.request('/v1/state/system.adapter.rest-api.0.alive', bearer(byForm.json.access_token));
    t.equal(res.status, 200);
    res = await app.request('/v1/command/getUserPermissions', bearer(byJson.json.access_token));
    t.equal(res.json.result.user, 'system.user.reader', 'the token runs as its user');
    res = await app.request('/v1/command/setState?id=0_userdata.0.example_state&state=true', bearer(byJson.json.access_token));
    t.equal(res.status, 403, 'with that user\'s rights');
});

t.test('token errors', async t => {
    let res = await app.request('/oauth/token', form({ grant_type: 'password', username: 'admin', password: 'wrong' }));
    t.equal(res.status, 400);
    t.match(res.json, { error: 'invalid_grant', error_description: 'Invalid grant: user credentials are invalid' });
    res = await app.request('/oauth/token', form({ grant_type: 'client_credentials' }));
    t.match(res.json, { error: 'unsupported_grant_type' });
    res = await app.request('/oauth/token', form({ grant_type: 'password' }));
    t.match([res.status, res.json.error], [400, 'invalid_request']);
    res = await app.request('/oauth/token', { method: 'POST', raw: '{oops', headers: { 'Content-Type': 'application/json' } });
    t.equal(res.status, 400);
    res = await app.request('/oauth/token', form({ grant_type: 'refresh_token', refresh_token: 'nope' }));
    t.match([res.status, res.json.error], [400, 'invalid_grant']);
});

t.test('refresh rotates: the old refresh token and its access token stop working', async t => {
    const first = (await app.request('/oauth/token', form({ grant_type: 'password', username: 'admin', password: 'iobroker' }))).json;
    const second = await app.request('/oauth/token', form({ grant_type: 'refresh_token', refresh_token: first.refresh_token }));
    t.equal(second.status, 200);
    t.not(second.json.access_token, first.access_token);
    t.equal((await app.request('/v1/command/getVersion', bearer(first.access_token))).status, 401);
    t.equal((await app.request('/v1/command/getVersion', bearer(second.json.access_token))).status, 200);
    const again = await app.request('/oauth/token', form({ grant_type: 'refresh_token', refresh_token: first.refresh_token }));
    t.match([again.status, again.json.error], [400, 'invalid_grant']);
    t.equal(await session(`a:${first.access_token}`), null);
});

t.test('revoke (RFC 7009) and logout', async t => {
    const tokens = (await app.request('/oauth/token', form({ grant_type: 'password', username: 'admin', password: 'iobroker' }))).json;
    let res = await app.request('/oauth/revoke', form({ token: tokens.refresh_token }));
    t.equal(res.status, 200);
    t.equal((await app.request('/v1/command/getVersion', bearer(tokens.access_token))).status, 401, 'revoking the refresh token ends its access token');
    t.equal((await app.request('/oauth/revoke', form({ token: 'unknown' }))).status, 200, 'unknown tokens are no error');

    const other = (await app.request('/oauth/token', form({ grant_type: 'password', username: 'admin', password: 'iobroker' }))).json;
    res = await app.request('/logout', { headers: { Cookie: `access_token=${other.access_token}` } });
    t.equal(res.status, 200);
    t.match(res.headers['set-cookie'], /access_token=; .*Max-Age=0/);
    t.equal((await app.request('/v1/command/getVersion', bearer(other.access_token))).status, 401);
    t.equal(await session(`r:${other.refresh_token}`), null);
});

t.test('a short ttl expires the access token; updateTokenExpiration extends a valid one', async t => {
    await configure({ ttl: 2 });
    const tokens = (await app.request('/oauth/token', form({ grant_type: 'password', username: 'admin', password: 'iobroker' }))).json;
    t.equal(tokens.expires_in, 2);
    const extended = await app.request(`/v1/command/updateTokenExpiration?accessToken=${tokens.access_token}`, bearer(tokens.access_token));
    t.same(extended.json, { error: null, result: true });
    const short = (await app.request('/oauth/token', form({ grant_type: 'password', username: 'admin', password: 'iobroker' }))).json;
    await new Promise(r => setTimeout(r, 2600));
    t.equal((await app.request('/v1/command/getVersion', bearer(short.access_token))).status, 401, 'expired');
    await configure({ ttl: 3600 });
});

t.test('brute-force damping: 429 with Retry-After per address; the right password from where the owner logged in before still works', async t => {
    const attacker = '127.0.50.1';
    // a user name is damped across addresses now: only networks the owner used before stay open during an attack
    t.equal((await app.request('/v1/command/getVersion', { headers: basic('admin', 'iobroker') })).status, 200);
    let last = await app.request('/v1/command/getVersion', { headers: basic('admin', 'guess'), remoteAddress: attacker });
    for (let i = 0; i < 12 && last.status !== 429; i++) {
        last = await app.request('/v1/command/getVersion', { headers: basic('admin', `guess${i}`), remoteAddress: attacker });
    }
    t.equal(last.status, 429);
    t.ok(Number(last.headers['retry-after']) > 0, 'Retry-After');
    const rightButLocked = await app.request('/v1/command/getVersion', { headers: basic('admin', 'iobroker'), remoteAddress: attacker });
    t.equal(rightButLocked.status, 429, 'the locked address is refused even with the right password');
    const owner = await app.request('/v1/command/getVersion', { headers: basic('admin', 'iobroker') });
    t.equal(owner.status, 200, 'the owner from its own address is not locked out');
    const elsewhere = await app.request('/v1/command/getVersion', { headers: basic('admin', 'iobroker'), remoteAddress: '127.0.60.1' });
    t.equal(elsewhere.status, 429, 'a new address waits while the name is under attack');
    t.ok(Number(elsewhere.headers['retry-after']) <= 60, 'a minute at most');
    const token = await app.request('/oauth/token', {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        raw: 'grant_type=password&username=admin&password=iobroker',
        remoteAddress: attacker,
    });
    t.equal(token.status, 429, 'the token endpoint shares the damping');
});

t.test('a changed password takes effect at once despite the credential cache', async t => {
    t.equal((await app.request('/v1/command/getVersion', { headers: basic('reader', 'readerpw') })).status, 200);
    const res = await app.request('/v1/command/changePassword', { method: 'POST', body: { user: 'reader', pass: 'newpw' }, headers: basic('reader', 'readerpw') });
    t.equal(res.status, 200);
    let status = 200;
    for (let i = 0; i < 40 && status === 200; i++) {
        status = (await app.request('/v1/command/getVersion', { headers: basic('reader', 'readerpw') })).status;
        await new Promise(r => setTimeout(r, 50));
    }
    t.equal(status, 401, 'the old password stops working');
    t.equal((await app.request('/v1/command/getVersion', { headers: basic('reader', 'newpw') })).status, 200);
});

t.test('query credentials, user names by display name', async t => {
    t.equal((await app.request('/v1/command/getVersion?user=admin&pass=iobroker')).status, 200);
    t.equal((await app.request('/v1/command/getVersion?user=system.user.admin&pass=iobroker')).status, 200);
});

t.test('docs: the page is public, the document asks for credentials with a Basic challenge; API calls never do', async t => {
    t.equal((await app.request('/api-doc/')).status, 200);
    const doc = await app.request('/api-docs/openapi.json');
    t.equal(doc.status, 401);
    t.match(doc.headers['www-authenticate'], /^Basic realm=/);
    const api = await app.request('/v1/command/getVersion');
    t.equal(api.status, 401);
    t.notOk(api.headers['www-authenticate'], 'no browser dialog on API calls');
    t.match(doc.json, { error: 'User is required' });
    t.ok((await app.request('/api-docs/openapi.json', { headers: basic('admin', 'iobroker') })).json.security);
    await configure({ publicDocs: true });
    t.equal((await app.request('/api-docs/openapi.json')).status, 200, 'publicDocs');
    await configure({ publicDocs: false });
});

t.test('CORS: any origin without credentials, or an allow-list', async t => {
    let res = await app.request('/name', { headers: { Origin: 'https://evil.example' } });
    t.equal(res.headers['access-control-allow-origin'], '*');
    t.notOk(res.headers['access-control-allow-credentials']);
    await configure({ corsOrigins: 'https://dash.example, https://other.example' });
    res = await app.request('/name', { headers: { Origin: 'https://dash.example' } });
    t.equal(res.headers['access-control-allow-origin'], 'https://dash.example');
    res = await app.request('/name', { headers: { Origin: 'https://evil.example' } });
    t.notOk(res.headers['access-control-allow-origin'], 'an origin outside the list is not reflected');
    await configure({ corsOrigins: '' });
});
