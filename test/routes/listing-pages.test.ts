/*
 * Pages and projections of /v1/states and /v1/objects against real storage: random page sizes walk
 * every id exactly once while another client writes and creates states, the last page has no next
 * link, fields shrink the answer, and every bad parameter is a 422 naming it.
 */
import t from 'tap';
import type { HttpAnswer } from '../support/iobroker';
import { startInProcess, type InProcessHost } from '../support/in-process';
import { appFixture, type AppFixture } from '../support/in-process-fixture';

let host: InProcessHost;
let iob: AppFixture;
const P = '0_userdata.0.pages';
const COUNT = 300;

t.before(async () => {
    host = await startInProcess();
    iob = await appFixture(host, { checkInterval: 0 });
    await Promise.all(Array.from({ length: COUNT }, (_, i) => iob.createState(`${P}.s${String(i).padStart(3, '0')}`, { type: 'number', unit: 'W' }, i)));
});
t.teardown(async () => {
    await iob?.close();
    await host?.stop();
});

const next = (res: HttpAnswer): string | undefined => /^<([^>]+)>; rel="next"$/.exec(String(res.headers.link ?? ''))?.[1];

async function walk(first: string, limits: () => number): Promise<{ ids: string[]; pages: number }> {
    const ids: string[] = [];
    let url: string | undefined = `${first}&limit=${limits()}`;
    let pages = 0;
    while (url) {
        const res = await iob.request(url);
        if (res.status !== 200) {
            throw new Error(`${url}: ${res.status} ${res.text}`);
        }
        const keys = Object.keys(res.json);
        ids.push(...keys);
        pages++;
        const following = next(res);
        // the next page keeps the filter and takes a new size
        url = following && following.replace(/limit=\d+/, `limit=${limits()}`);
    }
    return { ids, pages };
}

t.test('random page sizes walk every state exactly once while another client writes and creates', async t => {
    let seed = 7;
    const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    const before = Object.keys((await iob.request(`/v1/states?filter=${P}.*`)).json);
    let writing = true;
    let created = 0;
    const writer = (async () => {
        for (let i = 0; writing; i++) {
            await iob.storage.states.setStateAsync(`${P}.s${String(i % COUNT).padStart(3, '0')}`, { val: 1000 + i, ack: true, from: 'system.adapter.other.0' });
            if (i % 10 === 0) {
                await iob.createState(`${P}.new${String(created++).padStart(3, '0')}`, { type: 'number' }, 0);
            }
        }
    })();
    for (let round = 0; round < 3; round++) {
        const { ids, pages } = await walk(`/v1/states?filter=${P}.*`, () => 1 + Math.floor(random() * 60));
        t.equal(new Set(ids).size, ids.length, `round ${round}: no id twice (${pages} pages)`);
        t.same(before.filter(id => !ids.includes(id)), [], `round ${round}: none skipped that existed throughout`);
        t.same(ids, [...ids].sort(), 'ascending ids');
    }
    writing = false;
    await writer;
    t.ok(created > 0, `${created} states created meanwhile`);
});

t.test('pages: the last has no next link; without limit nothing changes; objects page too', async t => {
    const whole = await iob.request(`/v1/states?filter=${P}.s*`);
    t.notOk(whole.headers.link, 'no link without limit');
    let res = await iob.request(`/v1/states?filter=${P}.s*&limit=${COUNT}`);
    t.equal(Object.keys(res.json).length, COUNT);
    t.notOk(res.headers.link, 'everything fit: no next page');
    res = await iob.request(`/v1/states?filter=${P}.s*&limit=100`);
    t.same(Object.keys(res.json), Object.keys(whole.json).sort().slice(0, 100));
    t.match(next(res), /^\/v1\/states\?filter=.*&limit=100&cursor=/);
    res = await iob.request(`/rest-api/v1/objects?filter=${P}.s*&limit=120`);
    t.equal(Object.keys(res.json).length, 120);
    t.match(next(res), /^\/rest-api\/v1\/objects\?/, 'the link keeps the prefix it came in under');
    const second = await iob.request(next(res)!);
    t.equal(Object.keys(second.json)[0], `${P}.s120`);
});

t.test('fields: states and objects shrink to what was asked', async t => {
    let res = await iob.request(`/v1/states?filter=${P}.s00*&fields=val,ack`);
    t.same(res.json[`${P}.s001`], { val: (await iob.storage.states.getStateAsync(`${P}.s001`)).val, ack: true });
    res = await iob.request(`/v1/objects?filter=${P}.s00*&fields=common.name,common.unit,type`);
    t.same(res.json[`${P}.s001`], { common: { name: 's001', unit: 'W' }, type: 'state' });
    res = await iob.request(`/v1/objects?filter=${P}.s00*&type=state&fields=_id&limit=3`);
    t.same(res.json, { [`${P}.s000`]: { _id: `${P}.s000` }, [`${P}.s001`]: { _id: `${P}.s001` }, [`${P}.s002`]: { _id: `${P}.s002` } });
});

t.test('bad parameters: 422 naming them', async t => {
    const cases: Array<[string, string]> = [
        [`/v1/states?filter=${P}.*&limit=0`, 'limit'],
        [`/v1/states?filter=${P}.*&limit=10001`, 'limit'],
        [`/v1/states?filter=${P}.*&limit=ten`, 'limit'],
        [`/v1/states?filter=${P}.*&limit=5&cursor=garbage`, 'cursor'],
        [`/v1/states?filter=${P}.*&cursor=${Buffer.from('{"after":"x"}').toString('base64url')}`, 'cursor'],
        [`/v1/states?filter=${P}.*&fields=val,colour`, 'fields'],
        [`/v1/objects?filter=${P}.*&fields=common.name,secretThing`, 'fields'],
        [`/v1/objects?filter=${P}.*&fields=`, 'fields'],
    ];
    for (const [url, param] of cases) {
        const res = await iob.request(url);
        t.equal(res.status, 422, url);
        t.ok(res.json.details?.some((d: { param: string }) => d.param === param), `${url} names ${param}`);
    }
});

t.test('a limited user pages through only what it may read', async t => {
    const other = await appFixture(host, { auth: true, checkInterval: 0 });
    t.teardown(() => other.close());
    await other.createUser('pager', { state: { read: true, list: true }, object: { read: true, list: true } }, 'p');
    for (let i = 0; i < 40; i++) {
        const id = `${P}.g${String(i).padStart(2, '0')}`;
        await other.storage.objects.setObjectAsync(id, {
            _id: id,
            type: 'state',
            common: { name: id, type: 'number', role: 'value', read: true, write: true },
            native: {},
            acl: { owner: 'system.user.admin', ownerGroup: 'system.group.administrator', object: 0x664, state: i % 2 ? 0x600 : 0x664 },
        });
        await other.storage.states.setStateAsync(id, { val: i, ack: true, from: 'system.adapter.test.0' });
    }
    const headers = { Authorization: `Basic ${Buffer.from('pager:p').toString('base64')}` };
    const ids: string[] = [];
    let url: string | undefined = `/v1/states?filter=${P}.g*&limit=7`;
    while (url) {
        const res = await other.request(url, { headers });
        ids.push(...Object.keys(res.json));
        url = next(res);
    }
    t.same(ids, Array.from({ length: 20 }, (_, i) => `${P}.g${String(i * 2).padStart(2, '0')}`), 'the readable half, each once');
});

t.test('listing commands page in their envelope; the Link is a GET of the same command', async t => {
    const commands: Array<[string, Record<string, unknown>]> = [
        ['getStates', { pattern: `${P}.s*` }],
        ['getForeignStates', { pattern: `${P}.s*` }],
        ['getObjects', { list: `${P}.s*` }],
        ['getForeignObjects', { pattern: `${P}.s*`, type: 'state' }],
    ];
    for (const [name, params] of commands) {
        const whole = await iob.request(`/v1/command/${name}`, { method: 'POST', body: params });
        t.notOk(whole.headers.link, `${name}: no link without limit`);
        const ids: string[] = [];
        // the first page by POST, the others by the GET the Link names
        let res = await iob.request(`/v1/command/${name}`, { method: 'POST', body: { ...params, limit: 70 } });
        for (;;) {
            t.equal(res.status, 200, name);
            t.equal(res.json.error, null, `${name}: the envelope stays`);
            ids.push(...Object.keys(res.json.result));
            const following = next(res);
            if (!following) {
                break;
            }
            t.match(following, new RegExp(`^/v1/command/${name}\\?.*limit=70.*&cursor=`));
            res = await iob.request(following);
        }
        t.same(ids, Object.keys(whole.json.result).sort(), `${name}: every id once, ascending`);
        t.equal(ids.length, COUNT);
    }
    const list = [`${P}.s005`, `${P}.s001`, `${P}.s003`];
    let res = await iob.request(`/v1/command/getObjects?list=${encodeURIComponent(JSON.stringify(list))}&limit=2&fields=_id`);
    t.same(res.json.result, { [`${P}.s001`]: { _id: `${P}.s001` }, [`${P}.s003`]: { _id: `${P}.s003` } }, 'a list pages too, with fields');
    res = await iob.request(next(res)!);
    t.same(res.json.result, { [`${P}.s005`]: { _id: `${P}.s005` } });
    t.notOk(res.headers.link, 'the last page has no next');
    res = await iob.request(`/v1/command/getAllObjects?limit=5&fields=type`);
    t.equal(Object.keys(res.json.result).length, 5);
    t.ok(next(res), 'getAllObjects pages');
    res = await iob.request(`/v1/command/getStates?pattern=${P}.s00*&fields=val`);
    t.same(res.json.result[`${P}.s002`], { val: (await iob.storage.states.getStateAsync(`${P}.s002`)).val }, 'fields without limit');
});

t.test('listing commands: bad paging parameters are 422 naming them, in the envelope', async t => {
    const cases: Array<[string, string]> = [
        [`/v1/command/getStates?pattern=${P}.*&limit=0`, 'limit'],
        [`/v1/command/getForeignStates?pattern=${P}.*&limit=10001`, 'limit'],
        [`/v1/command/getObjects?list=${P}.*&limit=2&cursor=nonsense`, 'cursor'],
        [`/v1/command/getForeignObjects?pattern=${P}.*&cursor=${Buffer.from('{"after":"x"}').toString('base64url')}`, 'cursor'],
        [`/v1/command/getAllObjects?fields=secretThing`, 'fields'],
        [`/v1/command/getStates?pattern=${P}.*&fields=val,colour`, 'fields'],
    ];
    for (const [url, param] of cases) {
        const res = await iob.request(url);
        t.equal(res.status, 422, url);
        t.ok(res.json.details?.some((d: { param: string }) => d.param === param), `${url} names ${param}`);
        t.ok(res.json.error, 'an error text');
    }
});

t.test('large listings are written while serialised: chunked, and the same JSON as a small one would be', async t => {
    const BIG = 2600;
    const bigIds = Array.from({ length: BIG }, (_, i) => `${P}.big.x${String(i).padStart(4, '0')}`);
    for (let i = 0; i < BIG; i += 200) {
        await Promise.all(bigIds.slice(i, i + 200).map(id => iob.createState(id, { type: 'number' }, i)));
    }
    for (const url of [`/v1/states?filter=${P}.big.*`, `/v1/objects?filter=${P}.big.*`, `/v1/command/getStates?pattern=${P}.big.*`]) {
        const res = await iob.request(url);
        t.equal(res.status, 200, url);
        t.equal(res.headers['transfer-encoding'], 'chunked', `${url}: streamed`);
        t.notOk(res.headers['content-length'], 'no length known in advance');
        t.equal(res.text, JSON.stringify(res.json), 'exactly what JSON.stringify gives');
        const listing = url.includes('command') ? res.json.result : res.json;
        t.same(Object.keys(listing).sort(), bigIds, 'every id');
        const head = await iob.request(url, { method: 'HEAD' });
        t.equal(head.status, 200);
        t.equal(head.text, '', 'HEAD: no body');
    }
    const small = await iob.request(`/v1/states?filter=${P}.s00*`);
    t.ok(small.headers['content-length'], 'small listings keep their Content-Length');
});
