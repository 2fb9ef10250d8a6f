/*
 * GET /metrics against real storage, read with a Prometheus text-format parser: request counters by
 * route template that move, events and clients, process metrics, the states of `metricsStates`
 * with the caller's rights, the series limit, and credentials.
 */
import t from 'tap';
import { startInProcess, type InProcessHost } from '../support/in-process';
import { appFixture, type AppFixture } from '../support/in-process-fixture';
import { startHookReceiver, type HookReceiver } from '../support/hook-receiver';
import { families, sampleValue } from '../support/prometheus';
import { basic } from '../support/raw-request';

let host: InProcessHost;
let iob: AppFixture;
let hooks: HookReceiver;
const PRIVATE = '0_userdata.0.m.private';

t.before(async () => {
    host = await startInProcess();
    // over a real socket: requests are counted when their response closes, and a client that goes away needs one
    iob = await appFixture(host, { metricsStates: '0_userdata.0.m.*, 0_userdata.0.other' }, { socket: true });
    hooks = await startHookReceiver();
    await iob.createState('0_userdata.0.m.temp', { type: 'number', unit: '°C', name: { en: 'Temperature', de: 'Temperatur' } as never }, 21.5);
    await iob.createState('0_userdata.0.m.on', { type: 'boolean' }, true);
    await iob.createState('0_userdata.0.m.text', { type: 'string' }, 'not a number');
    await iob.createState('0_userdata.0.other', { type: 'number' }, 1);
    const acl = { owner: 'system.user.admin', ownerGroup: 'system.group.administrator', object: 0x600, state: 0x600 };
    await iob.storage.objects.setObjectAsync(PRIVATE, { _id: PRIVATE, type: 'state', common: { name: 'private', type: 'number', role: 'value', read: true, write: true }, native: {}, acl });
    await iob.storage.states.setStateAsync(PRIVATE, { val: 7, ack: true, from: 'system.adapter.test.0' });
});
t.teardown(async () => {
    hooks?.close();
    await iob?.close();
    await host?.stop();
});

const write = (id: string, val: ioBroker.StateValue) => iob.storage.states.setStateAsync(id, { val, ack: true, from: 'system.adapter.test.0' });

async function scrape(headers: Record<string, string> = {}) {
    const res = await iob.request('/metrics', { headers });
    if (res.status !== 200) {
        throw new Error(`/metrics answered ${res.status}: ${res.text}`);
    }
    return { text: res.text, contentType: res.headers['content-type'], all: families(res.text) };
}

async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean, ms = 5000): Promise<T> {
    const end = Date.now() + ms;
    let value = await read();
    while (!ok(value) && Date.now() < end) {
        await new Promise(r => setTimeout(r, 50));
        value = await read();
    }
    return value;
}

const STATE_ROUTE = { route: '/v1/state/:stateId', method: 'GET' };

t.test('requests are counted by route template, method and status class, and the counters move', async t => {
    const before = (await scrape()).all;
    const ok = (all: typeof before) => sampleValue(all, 'restapi_http_requests_total', { ...STATE_ROUTE, status: '2xx' }) ?? 0;
    const missing = (all: typeof before) => sampleValue(all, 'restapi_http_requests_total', { ...STATE_ROUTE, status: '4xx' }) ?? 0;
    for (let i = 0; i < 3; i++) {
        t.equal((await iob.request('/v1/state/0_userdata.0.m.temp')).status, 200);
    }
    t.equal((await iob.request('/v1/state/0_userdata.0.nothing')).status, 404);
    t.equal((await iob.request('/v1/command/getState?id=0_userdata.0.m.temp')).status, 200);
    t.equal((await iob.request('/no/such/path/xyzzy')).status, 404);
    const { text, contentType, all } = await scrape();
    t.match(contentType, /^text\/plain; version=0\.0\.4/, 'the exposition format and version');
    t.equal(ok(all) - ok(before), 3, 'three successful reads counted');
    t.equal(missing(all) - missing(before), 1, 'the 404 under 4xx');
    t.ok(sampleValue(all, 'restapi_http_requests_total', { route: '/v1/command/getState', method: 'GET', status: '2xx' })! >= 1, 'a command under its own name');
    t.ok(sampleValue(all, 'restapi_http_requests_total', { route: 'unmatched', status: '4xx' })! >= 1, 'an unknown path as "unmatched"');
    t.notOk(text.includes('xyzzy'), 'never a raw path as a label');
    t.equal(all.get('restapi_http_requests_total')?.type, 'COUNTER');
    t.equal(all.get('restapi_http_request_duration_seconds')?.type, 'HISTOGRAM');
    const count = /restapi_http_request_duration_seconds_count\{route="\/v1\/state\/:stateId",method="GET",status="2xx"\} (\d+)/.exec(text);
    t.ok(count && Number(count[1]) >= 3, `the latency histogram counts the reads (${count?.[1]})`);
    t.ok(sampleValue(all, 'process_resident_memory_bytes')! > 10_000_000, 'process memory');
    t.ok(sampleValue(all, 'process_cpu_user_seconds_total')! > 0, 'process CPU');
    t.ok(all.has('nodejs_eventloop_lag_seconds'), 'event-loop lag');
    t.equal(sampleValue(all, 'restapi_storage_connected'), 1, 'the storage link is up');
});

t.test('open clients, delivered events and hook failures', async t => {
    await iob.request('/v1/polling?sid=metrics&connect&timeout=1000');
    await iob.request('/v1/state/0_userdata.0.m.temp/subscribe?sid=metrics&method=polling');
    let { all } = await scrape();
    t.equal(sampleValue(all, 'restapi_open_clients', { kind: 'polling' }), 1, 'one polling session');
    const delivered = sampleValue(all, 'restapi_events_delivered_total', { channel: 'polling' }) ?? 0;
    await write('0_userdata.0.m.temp', 22);
    const poll = await iob.request('/v1/polling?sid=metrics');
    t.match(JSON.parse(poll.text), { id: '0_userdata.0.m.temp', state: { val: 22 } });
    all = (await scrape()).all;
    t.equal(sampleValue(all, 'restapi_events_delivered_total', { channel: 'polling' })! - delivered, 1, 'the event counted as delivered by polling');
    t.equal(sampleValue(all, 'restapi_events_dropped_total', { channel: 'polling' }), 0, 'nothing dropped');

    const res = await iob.request('/v1/state/0_userdata.0.other/subscribe', { method: 'POST', body: { url: hooks.url } });
    t.equal(res.status, 200, 'a hook registered');
    all = (await scrape()).all;
    t.equal(sampleValue(all, 'restapi_open_clients', { kind: 'hook' }), 1, 'one URL hook');
    const failures = sampleValue(all, 'restapi_hook_failures_total') ?? 0;
    hooks.failNext = [500];
    await write('0_userdata.0.other', 2);
    all = (await until(scrape, s => (sampleValue(s.all, 'restapi_hook_failures_total') ?? 0) > failures)).all;
    t.equal(sampleValue(all, 'restapi_hook_failures_total')! - failures, 1, 'the failed call counted');
    t.ok(sampleValue(all, 'restapi_events_delivered_total', { channel: 'hook' })! >= 1, 'the event counted for the hook');
    t.equal(sampleValue(all, 'restapi_open_clients', { kind: 'sse' }), 0, 'no event stream');
});

t.test('metricsStates: numbers and booleans as gauges with name and unit, values follow writes', async t => {
    await write('0_userdata.0.m.temp', 21.5);
    let all = (await until(scrape, s => sampleValue(s.all, 'iobroker_state', { id: '0_userdata.0.m.temp' }) === 21.5)).all;
    t.equal(sampleValue(all, 'iobroker_state', { id: '0_userdata.0.m.temp', name: 'Temperature', unit: '°C' }), 21.5, 'number with name and unit');
    t.equal(sampleValue(all, 'iobroker_state', { id: '0_userdata.0.m.on' }), 1, 'true as 1');
    t.equal(sampleValue(all, 'iobroker_state', { id: '0_userdata.0.other' }), 2, 'a second pattern');
    t.equal(sampleValue(all, 'iobroker_state', { id: '0_userdata.0.m.text' }), undefined, 'text is left out');
    t.equal(sampleValue(all, 'iobroker_state', { id: PRIVATE }), 7, 'the administrator may read the private state');
    t.equal(all.get('iobroker_state')?.type, 'GAUGE');
    await write('0_userdata.0.m.on', false);
    all = (await until(scrape, s => sampleValue(s.all, 'iobroker_state', { id: '0_userdata.0.m.on' }) === 0)).all;
    t.equal(sampleValue(all, 'iobroker_state', { id: '0_userdata.0.m.on' }), 0, 'false as 0, after the write');
});

t.test('wrong method and credentials', async t => {
    const post = await iob.request('/metrics', { method: 'POST', body: {} });
    t.equal(post.status, 405);
    t.equal(post.headers.allow, 'GET');
    await iob.createUser('limited', { state: { read: true, list: true }, object: { read: true, list: true } });
    await iob.createUser('nolist', { state: { read: true }, object: { read: true } });
    await iob.restart({ auth: true });
    const anonymous = await iob.request('/metrics');
    t.same([anonymous.status, anonymous.json], [401, { error: 'User is required' }], 'credentials needed with auth on');
    const wrong = await iob.request('/metrics', { headers: basic('admin', 'wrong') });
    t.equal(wrong.status, 401);
    t.notMatch(wrong.text, /restapi_/, 'no metrics in the refusal');
    let all = (await scrape(basic('admin', 'iobroker'))).all;
    t.equal(sampleValue(all, 'iobroker_state', { id: PRIVATE }), 7, 'the administrator sees every chosen state');
    all = (await scrape(basic('limited', 'secret'))).all;
    t.equal(sampleValue(all, 'iobroker_state', { id: PRIVATE }), undefined, 'a limited user never sees a state it may not read');
    t.equal(sampleValue(all, 'iobroker_state', { id: '0_userdata.0.m.temp' }), 21.5, 'but those it may');
    all = (await scrape(basic('nolist', 'secret'))).all;
    t.equal(all.get('iobroker_state'), undefined, 'a user who may not list gets no state series');
    t.ok(all.has('restapi_http_requests_total'), 'but the rest of the metrics, not a 403');
    await iob.restart({ auth: true, metricsPublic: true });
    all = (await scrape()).all;
    t.equal(sampleValue(all, 'iobroker_state', { id: '0_userdata.0.m.temp' }), 21.5, 'metricsPublic: served without credentials');
    const state = await iob.request('/v1/state/0_userdata.0.m.temp');
    t.equal(state.status, 401, 'only /metrics is public, not the rest');
});

t.test('at most 1,000 state series; the rest is counted as omitted', async t => {
    const ids = Array.from({ length: 1005 }, (_, i) => `0_userdata.0.many.s${String(i).padStart(4, '0')}`);
    await Promise.all(ids.map(id => iob.storage.objects.setObjectAsync(id, { _id: id, type: 'state', common: { name: id, type: 'number', role: 'value', read: true, write: true }, native: {} })));
    await Promise.all(ids.map((id, i) => iob.storage.states.setStateAsync(id, { val: i, ack: true, from: 'system.adapter.test.0' })));
    await iob.restart({ auth: false, metricsPublic: false, metricsStates: '0_userdata.0.many.*, bad[pattern' });
    const { all } = await scrape();
    t.equal(all.get('iobroker_state')?.metrics.length, 1000, '1,000 series');
    t.equal(sampleValue(all, 'restapi_metrics_states_omitted'), 5, 'five left out, and said so');
    t.equal(sampleValue(all, 'iobroker_state', { id: ids[0] }), 0, 'in id order');
    t.equal(sampleValue(all, 'iobroker_state', { id: ids[1004] }), undefined);
    t.pass('a pattern js-controller cannot take is left out, the scrape still answers');
});

t.test('a client that goes away is counted as aborted; while the database is away /metrics still answers', async t => {
    const { request } = await import('node:http');
    await iob.request('/v1/polling?sid=gone&connect&timeout=5000');
    await new Promise<void>(resolve => {
        const req = request(`${iob.baseUrl}/v1/polling?sid=gone`);
        req.on('error', () => resolve());
        req.end();
        setTimeout(() => {
            req.destroy();
            resolve();
        }, 200);
    });
    const all = (await until(scrape, s => (sampleValue(s.all, 'restapi_http_requests_total', { route: '/v1/polling', status: 'aborted' }) ?? 0) >= 1)).all;
    t.equal(sampleValue(all, 'restapi_http_requests_total', { route: '/v1/polling', status: 'aborted' }), 1, 'the abandoned long poll');

    // without state series the scrape needs nothing from the database
    await iob.restart({ metricsStates: '' });
    const bounce = iob.storage.bounce(3000);
    const down = await until(scrape, s => sampleValue(s.all, 'restapi_storage_connected') === 0, 2500);
    t.equal(sampleValue(down.all, 'restapi_storage_connected'), 0, 'the outage is reported, not a 503');
    await bounce;
    const up = await until(scrape, s => sampleValue(s.all, 'restapi_storage_connected') === 1, 10_000);
    t.equal(sampleValue(up.all, 'restapi_storage_connected'), 1, 'up again');
});
