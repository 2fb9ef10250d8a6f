import t from 'tap';
import { startInProcess, type InProcessHost } from '../support/in-process';
import { appFixture, type AppFixture } from '../support/in-process-fixture';

// preconditions on writes: If-Match / If-None-Match: * answer 412 and write nothing, one writer at a time per id
let host: InProcessHost;
let iob: AppFixture;
let reader: AppFixture;
let writer: AppFixture;
t.before(async () => {
    host = await startInProcess();
    iob = await appFixture(host);
    reader = await appFixture(host, { defaultUser: 'reader' });
    writer = await appFixture(host, { defaultUser: 'writeonly' });
    await iob.createUser('reader', { state: { read: true, write: false, list: true }, object: { read: true, write: false, list: true } });
    await iob.createUser('writeonly', { state: { read: false, write: true, list: false }, object: { read: false, write: true, list: false } });
    await iob.createState('0_userdata.0.pre.num', { type: 'number' }, 1);
    await iob.createState('0_userdata.0.pre.race', { type: 'number' }, 0);
    await iob.createState('0_userdata.0.pre.bulk', { type: 'number' }, 0);
});
t.teardown(async () => {
    await writer?.close();
    await reader?.close();
    await iob?.close();
    await host?.stop();
});

const stored = async (id: string): Promise<unknown> => (await host.storage.states.getStateAsync(id))?.val;
const tagOf = async (path: string): Promise<string> => (await iob.request(path)).headers.etag;

t.test('PATCH of a state with If-Match: 200 with the current tag, 412 with a stale one and nothing written', async t => {
    const path = '/v1/state/0_userdata.0.pre.num';
    const tag = await tagOf(path);
    const ok = await iob.request(path, { method: 'PATCH', body: { val: 2 }, headers: { 'If-Match': tag } });
    t.equal(ok.status, 200);
    t.equal(await stored('0_userdata.0.pre.num'), 2);
    const stale = await iob.request(path, { method: 'PATCH', body: { val: 3 }, headers: { 'If-Match': tag } });
    t.equal(stale.status, 412);
    t.equal(stale.headers.etag, await tagOf(path), '412 names the current version');
    t.equal(await stored('0_userdata.0.pre.num'), 2, 'nothing written');
    t.equal((await iob.request(path, { method: 'PATCH', body: { val: 4 }, headers: { 'If-Match': '*' } })).status, 200, '* matches any stored version');
    t.equal((await iob.request(path, { method: 'PATCH', body: { val: 5 }, headers: { 'If-Match': `W/${await tagOf(path)}` } })).status, 412, 'a weak tag never matches a write');
});

t.test('If-Match on a state without a value, or an id that does not exist: 412 or 404, never a write', async t => {
    await iob.createState('0_userdata.0.pre.empty', { type: 'number' });
    const res = await iob.request('/v1/state/0_userdata.0.pre.empty', { method: 'PATCH', body: { val: 1 }, headers: { 'If-Match': '*' } });
    t.equal(res.status, 412);
    t.equal(res.headers.etag, undefined, 'no version to name');
    t.equal(await stored('0_userdata.0.pre.empty'), undefined);
    const missing = await iob.request('/v1/state/0_userdata.0.pre.none', { method: 'PATCH', body: { val: 1 }, headers: { 'If-Match': '"x"' } });
    t.equal(missing.status, 404);
});

t.test('ten writers in parallel with the same tag: exactly one wins, the stored value is its', async t => {
    const path = '/v1/state/0_userdata.0.pre.race';
    const tag = await tagOf(path);
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => iob.request(path, { method: 'PATCH', body: { val: i + 1 }, headers: { 'If-Match': tag } })));
    const winners = answers.filter(a => a.status === 200);
    t.equal(winners.length, 1, 'one 200');
    t.equal(answers.filter(a => a.status === 412).length, 9, 'nine 412');
    t.equal(await stored('0_userdata.0.pre.race'), winners[0].json.val);
});

t.test('objects: If-Match on PUT and DELETE, If-None-Match: * on POST and PUT', async t => {
    const id = '0_userdata.0.pre.obj';
    const body = { type: 'state', common: { name: 'x', type: 'number', role: 'value', read: true, write: true }, native: {} };
    const created = await Promise.all([0, 1].map(() => iob.request(`/v1/object/${id}`, { method: 'PUT', body, headers: { 'If-None-Match': '*' } })));
    t.same(created.map(a => a.status).sort(), [200, 412], 'If-None-Match: * twice: one creates, one 412');
    t.equal((await iob.request(`/v1/object/${id}`, { method: 'POST', body, headers: { 'If-None-Match': '*' } })).status, 412, 'POST: exists');
    const tag = await tagOf(`/v1/object/${id}`);
    const merged = await iob.request(`/v1/object/${id}`, { method: 'PUT', body: { common: { desc: 'one' } }, headers: { 'If-Match': tag } });
    t.equal(merged.status, 200);
    const stale = await iob.request(`/v1/object/${id}`, { method: 'PUT', body: { common: { desc: 'two' } }, headers: { 'If-Match': tag } });
    t.equal(stale.status, 412);
    t.equal(stale.headers.etag, await tagOf(`/v1/object/${id}`));
    t.equal(((await host.storage.objects.getObjectAsync(id)) as ioBroker.Object).common.desc, 'one', 'nothing written');
    t.equal((await iob.request(`/v1/object/${id}`, { method: 'DELETE', headers: { 'If-Match': tag } })).status, 412);
    t.ok(await host.storage.objects.getObjectAsync(id), 'not deleted');
    t.equal((await iob.request(`/v1/object/${id}`, { method: 'DELETE', headers: { 'If-Match': await tagOf(`/v1/object/${id}`) } })).status, 200);
    t.notOk(await host.storage.objects.getObjectAsync(id), 'deleted');
    const parallel = await Promise.all([0, 1].map(() => iob.request(`/v1/object/${id}`, { method: 'POST', body, headers: { 'If-None-Match': '*' } })));
    t.same(parallel.map(a => a.status).sort(), [200, 412], 'POST with If-None-Match: * twice: one creates');
});

t.test('bulk writes: ifMatch per id, 412 for a stale one in a 207 with the current tag', async t => {
    const tag = await tagOf('/v1/state/0_userdata.0.pre.bulk');
    const res = await iob.request('/v1/states', {
        method: 'PATCH',
        body: { '0_userdata.0.pre.bulk': { val: 7, ifMatch: tag }, '0_userdata.0.pre.num': { val: 9, ifMatch: '"stale"' } },
    });
    t.equal(res.status, 207);
    t.same(res.json['0_userdata.0.pre.bulk'], { val: 7, ack: false });
    t.equal(res.json['0_userdata.0.pre.num'].status, 412);
    t.equal(res.json['0_userdata.0.pre.num'].etag, await tagOf('/v1/state/0_userdata.0.pre.num'));
    t.equal(await stored('0_userdata.0.pre.bulk'), 7);
    t.not(await stored('0_userdata.0.pre.num'), 9);
    t.equal((await host.storage.states.getStateAsync('0_userdata.0.pre.bulk'))?.ifMatch, undefined, 'ifMatch is not stored');
    const bad = await iob.request('/v1/states', { method: 'PATCH', body: { '0_userdata.0.pre.bulk': { val: 8, ifMatch: 42 } } });
    t.equal(bad.json['0_userdata.0.pre.bulk'].status, 412, 'a non-text ifMatch never matches');
});

t.test('without the write right 403, not 412; without the read right 403 and no tag', async t => {
    const tag = await tagOf('/v1/state/0_userdata.0.pre.num');
    for (const [path, method, body] of [
        ['/v1/state/0_userdata.0.pre.num', 'PATCH', { val: 11 }],
        ['/v1/object/0_userdata.0.pre.num', 'PUT', { common: { desc: 'x' } }],
        ['/v1/object/0_userdata.0.pre.num', 'DELETE', undefined],
    ] as const) {
        for (const header of ['"stale"', tag]) {
            const res = await reader.request(path, { method, body, headers: { 'If-Match': header } });
            t.equal(res.status, 403, `reader ${method} ${path}`);
            t.equal(res.headers.etag, undefined);
        }
        const blind = await writer.request(path, { method, body, headers: { 'If-Match': '"stale"' } });
        t.equal(blind.status, 403, `write-only ${method} ${path}`);
        t.equal(blind.headers.etag, undefined, 'no tag of what it cannot read');
    }
    t.not(await stored('0_userdata.0.pre.num'), 11);
});

t.test('bad If-Match values never cause a 500', async t => {
    for (const header of ['', 'garbage', '"unterminated', 'W/', ',', '*, "x"', 'x'.repeat(4000)]) {
        const res = await iob.request('/v1/state/0_userdata.0.pre.num', { method: 'PATCH', body: { val: 1 }, headers: { 'If-Match': header } });
        t.equal(res.status, 412, JSON.stringify(header.slice(0, 20)));
        const obj = await iob.request('/v1/object/0_userdata.0.pre.num', { method: 'PUT', body: {}, headers: { 'If-Match': header, 'If-None-Match': header } });
        t.ok(obj.status === 412 || obj.status === 200, `object: ${obj.status}`);
    }
});

t.test('writes without precondition headers answer as before, with no-cache', async t => {
    const res = await iob.request('/v1/state/0_userdata.0.pre.num', { method: 'PATCH', body: { val: 12 } });
    t.equal(res.status, 200);
    t.match(res.json, { val: 12, id: '0_userdata.0.pre.num' });
    t.equal(res.headers['cache-control'], 'no-cache');
});
