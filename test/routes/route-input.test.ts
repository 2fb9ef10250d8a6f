/*
 * REST routes parse their query through their declared schema: one boolean convention
 * (true/false/1/0/on/off, bare flags), bounds from the schema, and 422 naming the parameter.
 */
import t from 'tap';
import { startInProcess, type InProcessHost } from '../support/in-process';
import { appFixture, type AppFixture } from '../support/in-process-fixture';

let host: InProcessHost;
let iob: AppFixture;
const ID = '0_userdata.0.routeInput';
t.before(async () => {
    host = await startInProcess();
    iob = await appFixture(host, { checkInterval: 0 });
    await iob.createState(ID, { type: 'number', unit: 'W' }, 1);
});
t.teardown(async () => {
    await iob?.close();
    await host?.stop();
});

t.test('withInfo=1 and a bare ?withInfo merge the object, as withInfo=true does (4.0.2 ignored 1)', async t => {
    for (const query of ['withInfo=true', 'withInfo=1', 'withInfo', 'withInfo=on']) {
        const res = await iob.request(`/v1/state/${ID}?${query}`);
        t.equal(res.json.common?.unit, 'W', query);
    }
    for (const query of ['withInfo=false', 'withInfo=0', 'withInfo=']) {
        const res = await iob.request(`/v1/state/${ID}?${query}`);
        t.notOk(res.json.common, query);
    }
});

t.test('ack and extraPlain take the same words', async t => {
    let res = await iob.request(`/v1/state/${ID}?value=5&ack=1`);
    t.same(res.json, { val: 5, id: ID });
    t.equal((await iob.storage.states.getStateAsync(ID))?.ack, true, 'ack=1 wrote acknowledged');
    await iob.request(`/v1/state/${ID}?value=6&ack=0`);
    t.equal((await iob.storage.states.getStateAsync(ID))?.ack, false);
    res = await iob.request(`/v1/state/${ID}/plain?extraPlain=1`);
    t.equal(res.text, '6');
});

t.test('bad values are 422 naming the parameter; timeouts are capped as in 4.0.2', async t => {
    for (const [url, param] of [
        [`/v1/state/${ID}?withInfo=maybe`, 'withInfo'],
        [`/v1/state/${ID}/plain?extraPlain=perhaps`, 'extraPlain'],
        [`/v1/polling?sid=x&batch=several`, 'batch'],
    ]) {
        const res = await iob.request(url);
        t.equal(res.status, 422, url);
        t.ok(res.json.details?.some((d: { param: string }) => d.param === param), `${url} names ${param}`);
    }
    // 4.0.2 capped timeouts instead of refusing them: a write-and-wait with a huge timeout still works
    const writing = iob.request(`/v1/state/${ID}?value=7&timeout=99999999`);
    await new Promise(resolve => setTimeout(resolve, 300));
    await iob.storage.states.setStateAsync(ID, { val: 7, ack: true, from: 'system.adapter.device.0' });
    const res = await writing;
    t.equal(res.status, 200);
    t.match(res.json, { val: 7, ack: true, id: ID });
    t.equal((await iob.request(`/v1/state/${ID}?value=8&timeout=soon`)).status, 200, 'a timeout that is no number: no wait, as in 4.0.2');
});

const names = (res: { json: { details?: { param: string }[] } }): string[] => (res.json.details ?? []).map(d => d.param);

t.test('JSON bodies are parsed by their declared schema: 422 naming the field, 4.0.2 spellings accepted', async t => {
    const patch = (body: unknown) => iob.request(`/v1/state/${ID}`, { method: 'PATCH', body });
    for (const [body, field] of [
        [[1, 2], '(body)'],
        ['"text"', '(body)'],
        [{ val: 1, ack: 'maybe' }, 'ack'],
        [{ val: 1, ts: 'yesterday' }, 'ts'],
        [{ val: 1, q: 'good' }, 'q'],
    ] as const) {
        const res = await patch(body);
        t.equal(res.status, 422, JSON.stringify(body));
        t.ok(names(res).includes(field), `${JSON.stringify(body)} names ${field}: ${res.text}`);
    }
    t.equal((await iob.storage.states.getStateAsync(ID))?.val !== 'text', true, 'nothing written by a refused body');
    const res = await patch({ val: 11, ack: 'true' });
    t.equal(res.status, 200, res.text);
    const stored = await iob.storage.states.getStateAsync(ID);
    t.equal(stored?.val, 11);
    t.equal(stored?.ack, true, 'ack "true" is the boolean true, as one convention for query and body');
    const empty = await iob.request(`/v1/state/${ID}`, { method: 'PATCH' });
    t.equal(empty.status, 422, 'a PATCH without a body');
});

t.test('nested body fields are named from the top (history options, addHistory state)', async t => {
    let res = await iob.request('/v1/getHistory', { method: 'POST', body: { id: ID, options: { count: 'many' } } });
    t.equal(res.status, 422);
    t.ok(names(res).includes('options.count'), res.text);
    res = await iob.request('/v1/getHistory', { method: 'POST', body: { options: {} } });
    t.equal(res.status, 422);
    t.ok(names(res).includes('id'), res.text);
    res = await iob.request('/v1/addHistory', { method: 'POST', body: { id: ID, state: { ts: 1 } } });
    t.equal(res.status, 422);
    t.ok(names(res).some(n => n.startsWith('state')), res.text);
    res = await iob.request('/v1/addHistory', { method: 'POST', body: { id: ID, state: 5 } });
    t.equal(res.status, 422);
    t.ok(names(res).includes('state'), res.text);
});

t.test('bulk read, object create, events and subscriptions refuse bad fields by their schema', async t => {
    let res = await iob.request('/v1/states/query', { method: 'POST', body: { ids: 'a,b' } });
    t.equal(res.status, 422);
    t.ok(names(res).includes('ids'), res.text);
    res = await iob.request('/v1/states/query', { method: 'POST', body: { ids: [ID, ''] } });
    t.equal(res.status, 422, 'an empty id');
    res = await iob.request('/v1/states/query', { method: 'POST', body: { ids: [ID], fields: ['val', 'colour'] } });
    t.equal(res.status, 422);
    t.ok(names(res).includes('fields'), res.text);
    res = await iob.request('/v1/object/0_userdata.0.routeInputObj', { method: 'POST', body: { type: 'state' } });
    t.equal(res.status, 422);
    t.ok(names(res).includes('common'), res.text);
    t.equal((await iob.request('/v1/object/0_userdata.0.routeInputObj')).status, 404, 'nothing created');
    res = await iob.request('/v1/object/0_userdata.0.routeInputObj', { method: 'POST', body: { type: 'state', common: { name: 'x', type: 'number', role: 'state', read: true, write: true }, native: {}, extra: 1 } });
    t.equal(res.status, 200, 'free fields of an object are kept');
    t.equal((await iob.storage.objects.getObjectAsync('0_userdata.0.routeInputObj'))?.common.name, 'x');
    res = await iob.request('/v1/events?pattern=a.*&heartbeat=10');
    t.equal(res.status, 422, 'heartbeat below its minimum');
    t.ok(names(res).includes('heartbeat'), res.text);
    res = await iob.request(`/v1/state/${ID}/subscribe?url=http://127.0.0.1:9/h&onchange=maybe`);
    t.equal(res.status, 422);
    t.ok(names(res).includes('onchange'), res.text);
    res = await iob.request(`/v1/state/${ID}/subscribe`, { method: 'POST', body: { url: 'http://127.0.0.1:9/h', delta: 'big' } });
    t.equal(res.status, 422);
    t.ok(names(res).includes('delta'), res.text);
});

t.test('sendto: message from the query with a POST body, a timeout that is no number counts as not given', async t => {
    // admin.0 is not running here: the instance check answers before any wait, after the parameters passed
    let res = await iob.request('/v1/sendto/admin.0?message=ping', { method: 'POST', body: { data: 1, timeout: 'soon' } });
    t.not(res.status, 422, res.text);
    res = await iob.request('/v1/sendto/admin.0', { method: 'POST', body: { message: 'ping', noResponse: 'perhaps' } });
    t.equal(res.status, 422);
    t.ok(names(res).includes('noResponse'), res.text);
    res = await iob.request('/v1/sendto/admin.0', { method: 'POST', body: [1] });
    t.equal(res.status, 422);
});

t.test('JSON null in a body: a value for val, not a true flag for ack', async t => {
    let res = await iob.request(`/v1/state/${ID}`, { method: 'PATCH', body: { val: 12, ack: null } });
    t.equal(res.status, 200, res.text);
    let stored = await iob.storage.states.getStateAsync(ID);
    t.equal(stored?.val, 12);
    t.equal(stored?.ack, false, 'ack null is not ack=true');
    // no history instance runs here: the answer is about that, not about the parameters
    res = await iob.request('/v1/getHistory', { method: 'POST', body: { id: ID, options: { count: null, start: '' } } });
    t.notOk(res.json.details, `empty history options count as not given: ${res.text}`);
    t.match(res.json.error, /dataSource/);
    res = await iob.request('/v1/addHistory', { method: 'POST', body: { id: ID, state: { val: null } } });
    t.notOk(res.json.details, `a null value may be stored: ${res.text}`);
    t.match(res.json.error, /dataSource/);
    res = await iob.request(`/v1/state/${ID}/subscribe?method=polling&sid=nullbody`, { method: 'POST', raw: 'null', headers: { 'Content-Type': 'application/json' } });
    t.equal(res.status, 200, `a null body on an optional-body route falls back to the query: ${res.text}`);
    stored = await iob.storage.states.getStateAsync(ID);
    t.equal(stored?.val, 12, 'nothing else written');
});
