/*
 * Inbound webhooks against real storage: receivers made by administrators only, payloads written as
 * states under rest-api.0.webhooks.<name> and nowhere else, every way of proving the secret, the
 * limits, and nothing written on any error.
 */
import { createHmac } from 'node:crypto';
import t from 'tap';
import { startInProcess, type InProcessHost } from '../support/in-process';
import { appFixture, type AppFixture } from '../support/in-process-fixture';
import { basic, rawRequest } from '../support/raw-request';

let host: InProcessHost;
let iob: AppFixture;
const ADMIN = basic('admin', 'iobroker');
const BASE = 'rest-api.0.webhooks';

t.before(async () => {
    host = await startInProcess();
    // a real server: guessing is damped per client address, sent from another loopback address
    iob = await appFixture(host, { auth: true }, { serve: true });
    await iob.createUser('writer', { object: { read: true, list: true, write: true }, state: { read: true, list: true, write: true } });
});
t.teardown(async () => {
    await iob?.close();
    await host?.stop();
});

async function receiver(name: string, secret?: string): Promise<{ url: string; secret: string }> {
    const res = await iob.request(`/v1/webhooks/${name}`, { method: 'PUT', headers: ADMIN, ...(secret ? { body: { secret } } : {}) });
    if (res.status !== 200) {
        throw new Error(`PUT receiver ${name}: ${res.status} ${res.text}`);
    }
    return res.json;
}

const post = (name: string, body: string, headers: Record<string, string> = {}, query = '') =>
    iob.request(`/webhooks/${name}${query}`, { method: 'POST', raw: body, headers: { 'Content-Type': 'application/json', ...headers } });

const val = async (id: string) => (await iob.storage.states.getStateAsync(id))?.val;
const ids = async (prefix: string) => Object.keys((await iob.storage.objects.getObjectListAsync({ startkey: prefix, endkey: `${prefix}\u9999` })).rows.reduce((all: Record<string, true>, row: { id: string }) => ((all[row.id] = true), all), {}));

t.test('an administrator creates a receiver; a nested payload becomes states, repeat posts update in place', async t => {
    const created = await receiver('nuki');
    t.match(created, { name: 'nuki', url: /^http:\/\/127\.0\.0\.1:\d+\/webhooks\/nuki$/ });
    t.ok(created.secret.length >= 16, 'a random secret when none is given');
    const list = await iob.request('/v1/webhooks', { headers: ADMIN });
    t.same(list.json.map((r: { name: string }) => r.name), ['nuki']);
    t.notOk(list.text.includes(created.secret), 'the list never shows the secret');
    t.equal(list.json[0].lastReceived, null, 'nothing received yet');

    const payload = { door: { state: 'open', battery: 87, critical: false }, events: [{ type: 'ring' }, { type: 'unlock', by: 'Jürgen 🙂' }], 'mode.name': 'Ü', nothing: null };
    const res = await post('nuki', JSON.stringify(payload), {}, `?key=${encodeURIComponent(created.secret)}`);
    t.same([res.status, res.json.name, res.json.states], [200, 'nuki', 8]);
    t.equal(await val(`${BASE}.nuki.door.state`), 'open');
    t.equal(await val(`${BASE}.nuki.door.battery`), 87);
    t.equal(await val(`${BASE}.nuki.door.critical`), false);
    t.equal(await val(`${BASE}.nuki.events.1.by`), 'Jürgen 🙂', 'arrays by index, unicode kept');
    t.equal(await val(`${BASE}.nuki.mode_name`), 'Ü', 'a dot in a key cannot make a new level');
    t.equal(await val(`${BASE}.nuki.nothing`), null);
    t.same(JSON.parse(String(await val(`${BASE}.nuki.raw`))), payload, 'raw keeps the body');
    t.ok(Number(await val(`${BASE}.nuki.lastReceived`)) > Date.now() - 10_000);
    const battery = await iob.storage.objects.getObjectAsync(`${BASE}.nuki.door.battery`);
    t.match(battery.common, { type: 'number', role: 'state', read: true, write: false });
    t.equal((await iob.storage.objects.getObjectAsync(`${BASE}.nuki.door.state`)).common.type, 'string');

    const before = await ids(`${BASE}.nuki.`);
    const again = await post('nuki', JSON.stringify({ ...payload, door: { ...payload.door, battery: 86 } }), {}, `?key=${encodeURIComponent(created.secret)}`);
    t.equal(again.status, 200);
    t.equal(await val(`${BASE}.nuki.door.battery`), 86, 'updated in place');
    t.same(await ids(`${BASE}.nuki.`), before, 'no new objects for the same keys');
    t.equal((await iob.storage.states.getStateAsync(`${BASE}.nuki.door.battery`)).ack, true);
});

t.test('the secret: key, X-Webhook-Signature, Standard Webhooks; wrong ones 401 and nothing written', async t => {
    const { secret } = await receiver('shelly', 'a-shared-secret-1');
    t.equal(secret, 'a-shared-secret-1', 'a given secret is kept');
    const body = JSON.stringify({ temp: 21.5 });
    let res = await post('shelly', body);
    t.same([res.status, res.json], [401, { error: 'Wrong or missing webhook secret' }], 'no secret');
    res = await post('shelly', body, {}, '?key=wrong-secret');
    t.equal(res.status, 401, 'wrong key');
    t.notOk(res.text.includes('a-shared-secret-1'), 'the secret never appears in an error');
    const hex = (key: string) => createHmac('sha256', key).update(body).digest('hex');
    res = await post('shelly', body, { 'X-Webhook-Signature': `sha256=${hex('another-key')}` });
    t.equal(res.status, 401, 'a signature with the wrong key');
    t.equal(await val(`${BASE}.shelly.temp`), undefined, 'nothing written by refused posts');
    res = await post('shelly', body, { 'X-Webhook-Signature': `sha256=${hex('a-shared-secret-1')}` });
    t.equal(res.status, 200, 'the right signature');
    t.equal(await val(`${BASE}.shelly.temp`), 21.5);
    res = await post('shelly', JSON.stringify({ temp: 30 }), { 'X-Webhook-Signature': `sha256=${hex('a-shared-secret-1')}` });
    t.equal(res.status, 401, 'a signature of another body');
    t.equal(await val(`${BASE}.shelly.temp`), 21.5);

    const whsec = `whsec_${Buffer.from('standard webhooks key').toString('base64')}`;
    await receiver('standard', whsec);
    const signed = (timestamp: number, key = 'standard webhooks key') => {
        const id = 'msg_1';
        const signature = createHmac('sha256', Buffer.from(key)).update(`${id}.${timestamp}.${body}`).digest('base64');
        return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': `v1,${signature}` };
    };
    const now = Math.floor(Date.now() / 1000);
    t.equal((await post('standard', body, signed(now))).status, 200, 'Standard Webhooks signature');
    t.equal((await post('standard', body, signed(now, 'other key'))).status, 401, 'signed with another key');
    t.equal((await post('standard', body, signed(now - 3600))).status, 401, 'an hour-old signature (replay)');
});

t.test('guessing secrets is damped per address like passwords', async t => {
    await receiver('guarded', 'the-right-secret');
    const from = '127.0.0.77';
    const attempt = (key: string) =>
        rawRequest(`${iob.baseUrl}/webhooks/guarded?key=${key}`, { method: 'POST', body: '{"a":1}', headers: { 'Content-Type': 'application/json' }, localAddress: from });
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
        statuses.push((await attempt(`guess${i}`)).status);
    }
    t.same(statuses.slice(0, 5), [401, 401, 401, 401, 401]);
    t.equal(statuses[6], 429, 'locked after repeated wrong secrets');
    const locked = await attempt('the-right-secret');
    t.equal(locked.status, 429, 'even the right secret waits while the address is locked');
    t.ok(Number(locked.headers['retry-after']) > 0);
    const elsewhere = await post('guarded', '{"a":1}', {}, '?key=the-right-secret');
    t.equal(elsewhere.status, 200, 'another address is not locked out');
});

t.test('bad bodies and limits: 400, 413, 422, nothing written', async t => {
    const { secret } = await receiver('limits', 'limits-secret-1');
    const key = `?key=${secret}`;
    let res = await post('limits', '{"broken": ', {}, key);
    t.same([res.status, res.json.error], [400, 'The body is not valid JSON']);
    res = await post('limits', '42', {}, key);
    t.equal(res.status, 422, 'a JSON scalar is no payload');
    const wide = Object.fromEntries(Array.from({ length: 501 }, (_, i) => [`k${i}`, i]));
    res = await post('limits', JSON.stringify(wide), {}, key);
    t.equal(res.status, 413, '501 values');
    let deep: unknown = { leaf: 1 };
    for (let i = 0; i < 9; i++) {
        deep = { level: deep };
    }
    res = await post('limits', JSON.stringify(deep), {}, key);
    t.equal(res.status, 422, 'deeper than 8 levels');
    res = await post('limits', JSON.stringify({ big: 'x'.repeat(1024 * 1024) }), {}, key);
    t.equal(res.status, 413, 'more than 1 MB');
    t.same(await ids(`${BASE}.limits.`), [], 'no state was created by any of them');
    const within = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`k${i}`, i]));
    res = await post('limits', JSON.stringify(within), {}, key);
    t.same([res.status, res.json.states], [200, 500], '500 values are fine');
    t.equal((await post('nobody-here', '{}', {}, key)).status, 404, 'unknown receiver');
    t.equal((await post('bad.name', '{}', {}, key)).status, 422, 'a name outside the id rules');
});

t.test('forms and text; nothing outside the receiver\'s namespace can be written', async t => {
    const { secret } = await receiver('forms', 'forms-secret-1');
    let res = await iob.request(`/webhooks/forms?key=${secret}`, { method: 'POST', raw: 'event=doorbell&room=hall+way', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
    t.equal(res.status, 200);
    t.equal(await val(`${BASE}.forms.room`), 'hall way');
    res = await iob.request(`/webhooks/forms?key=${secret}`, { method: 'POST', raw: 'plain words', headers: { 'Content-Type': 'text/plain' } });
    t.same([res.status, res.json.states], [200, 0]);
    t.equal(await val(`${BASE}.forms.raw`), 'plain words', 'text is kept in raw');

    const alive = await iob.storage.states.getStateAsync('system.adapter.admin.0.alive');
    const evil = { '../../system.adapter.admin.0.alive': true, 'system.adapter.rest-api.0': { alive: false }, raw: 'overwrite?', '': 1 };
    res = await iob.request(`/webhooks/forms?key=${secret}`, { method: 'POST', body: evil });
    t.equal(res.status, 200);
    const written = await ids(`${BASE}.forms.`);
    t.ok(written.includes(`${BASE}.forms.______system_adapter_admin_0_alive`), 'dots and slashes become _');
    t.ok(written.includes(`${BASE}.forms.raw_`), 'a payload key "raw" does not overwrite raw');
    t.ok(written.includes(`${BASE}.forms._`), 'an empty key');
    t.same(await iob.storage.states.getStateAsync('system.adapter.admin.0.alive'), alive, 'nothing outside was touched');
    t.equal((await iob.storage.states.getStateAsync('system.adapter.rest-api.0.alive'))?.val, true);
});

t.test('only administrators manage receivers; delete keeps states unless purge', async t => {
    const writer = basic('writer', 'secret');
    let res = await iob.request('/v1/webhooks/mine', { method: 'PUT', headers: writer });
    t.same([res.status, res.json.error], [403, 'permissionError'], 'a user with object write rights is still no administrator');
    t.equal((await iob.request('/v1/webhooks', { headers: writer })).status, 403);
    t.equal((await iob.request('/v1/webhooks/nuki', { method: 'DELETE', headers: writer })).status, 403);
    t.equal((await iob.request('/v1/webhooks/mine', { method: 'PUT' })).status, 401, 'no credentials');
    res = await iob.request('/v1/webhooks/mine', { method: 'PUT', headers: ADMIN, body: { secret: 'short' } });
    t.equal(res.status, 422, 'a secret under 8 characters');
    res = await iob.request('/v1/webhooks/bad.name', { method: 'PUT', headers: ADMIN });
    t.equal(res.status, 422, 'a name outside the id rules');

    res = await iob.request('/v1/webhooks/nuki', { method: 'DELETE', headers: ADMIN });
    t.same([res.status, res.json], [200, { name: 'nuki', purged: false }]);
    t.equal(await val(`${BASE}.nuki.door.battery`), 86, 'states stay');
    t.equal((await post('nuki', '{}', {}, '?key=x')).status, 404, 'the receiver is gone');
    t.equal((await iob.request('/v1/webhooks/nuki', { method: 'DELETE', headers: ADMIN })).status, 404, 'deleting again');
    await receiver('nuki');
    res = await iob.request('/v1/webhooks/nuki?purge=true', { method: 'DELETE', headers: ADMIN });
    t.same([res.status, res.json.purged], [200, true]);
    t.same(await ids(`${BASE}.nuki`), [], 'purge removed the receiver and its states');
    t.equal(await val(`${BASE}.nuki.door.battery`), undefined);
});

t.test('switched off: no receiver routes', async t => {
    await iob.restart({ inboundWebhooks: false });
    t.equal((await post('shelly', '{}', {}, '?key=a-shared-secret-1')).status, 404);
    t.equal((await iob.request('/v1/webhooks', { headers: ADMIN })).status, 404);
});
