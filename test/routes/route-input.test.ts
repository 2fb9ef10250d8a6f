/*
 * REST routes parse their query through their declared schema: one boolean convention
 * (true/false/1/0/on/off, bare flags), bounds from the schema, and 422 naming the parameter.
 */
import t from 'tap';
import { startIobroker, type IobFixture } from '../support/iobroker';

let iob: IobFixture;
const ID = '0_userdata.0.routeInput';
t.before(async () => {
    iob = await startIobroker({ native: { checkInterval: 0 } });
    await iob.createState(ID, { type: 'number', unit: 'W' }, 1);
});
t.teardown(() => iob?.stop());

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
