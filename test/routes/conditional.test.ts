import t from 'tap';
import { startInProcess, type InProcessHost } from '../support/in-process';
import { appFixture, type AppFixture } from '../support/in-process-fixture';

// validators on reads: ETag (and Last-Modified) on every read that offers them, 304 without a body
let host: InProcessHost;
let iob: AppFixture;
let blind: AppFixture;
t.before(async () => {
    host = await startInProcess();
    iob = await appFixture(host);
    blind = await appFixture(host, { defaultUser: 'blind' });
    await iob.createUser('blind', { state: { read: false, write: false, list: false }, object: { read: false, list: false }, file: { read: false } });
    await iob.createState('0_userdata.0.cond.num', { type: 'number' }, 1);
    await iob.createState('0_userdata.0.cond.str', { type: 'string' }, 'a');
    await host.storage.objects.setObjectAsync('enum.rooms.condroom', { _id: 'enum.rooms.condroom', type: 'enum', common: { name: 'Room', members: ['0_userdata.0.cond.num'] }, native: {} } as never);
    await iob.request('/v1/file/0_userdata.0/cond.txt', { method: 'POST', body: 'hello', headers: { 'Content-Type': 'application/octet-stream' } });
});
t.teardown(async () => {
    await blind?.close();
    await iob?.close();
    await host?.stop();
});

const READS = [
    '/v1/state/0_userdata.0.cond.num',
    '/v1/state/0_userdata.0.cond.num?withInfo=true',
    '/v1/state/0_userdata.0.cond.num,0_userdata.0.cond.str',
    '/v1/state/0_userdata.0.cond.num/plain',
    '/v1/states?filter=0_userdata.0.cond.*',
    '/v1/states?filter=0_userdata.0.cond.*&limit=1',
    '/v1/object/0_userdata.0.cond.num',
    '/v1/objects?filter=0_userdata.0.cond.*',
    '/v1/enum',
    '/v1/enum/rooms',
    '/v1/file/0_userdata.0/cond.txt',
    '/api-docs/openapi.json',
    '/rest-api/v1/state/0_userdata.0.cond.num',
];

t.test('every read answers an ETag and no-cache, and 304 with no body to If-None-Match', async t => {
    for (const path of READS) {
        const first = await iob.request(path);
        t.equal(first.status, 200, path);
        const etag = first.headers.etag;
        t.match(etag, /^"[^"]+"$/, `${path}: ETag`);
        t.equal(first.headers['cache-control'], 'no-cache', `${path}: Cache-Control`);
        const again = await iob.request(path, { headers: { 'If-None-Match': etag } });
        t.equal(again.status, 304, `${path}: 304`);
        t.equal(again.text, '', `${path}: no body`);
        t.equal(again.headers.etag, etag, `${path}: the same ETag on 304`);
        // a list, a weak form of the tag and * match too (weak comparison)
        for (const header of [`"nope", ${etag}`, `W/${etag}`, '*']) {
            t.equal((await iob.request(path, { headers: { 'If-None-Match': header } })).status, 304, `${path}: If-None-Match ${header}`);
        }
        const other = await iob.request(path, { headers: { 'If-None-Match': '"something-else"' } });
        t.equal(other.status, 200, `${path}: another tag gets the body`);
        t.equal(other.text, first.text);
        const head = await iob.request(path, { method: 'HEAD', headers: { 'If-None-Match': etag } });
        t.equal(head.status, 304, `${path}: HEAD`);
    }
});

t.test('the state tag changes with every write, also of the same value with a new ts, and with a given ts', async t => {
    const path = '/v1/state/0_userdata.0.cond.num';
    const before = (await iob.request(path)).headers.etag;
    t.equal((await iob.request(path, { method: 'PATCH', body: { val: 1, ack: true } })).status, 200);
    const sameValue = await iob.request(path, { headers: { 'If-None-Match': before } });
    t.equal(sameValue.status, 200, 'the same value written again is a new version');
    t.not(sameValue.headers.etag, before);
    const ts = sameValue.json.ts as number;
    // a writer that names the ts: only the value differs
    t.equal((await iob.request(path, { method: 'PATCH', body: { val: 2, ack: true, ts } })).status, 200);
    const sameTs = await iob.request(path, { headers: { 'If-None-Match': sameValue.headers.etag } });
    t.equal(sameTs.status, 200, 'another value with the same ts is a new version');
    t.equal(sameTs.json.val, 2);
    const plain = await iob.request(`${path}/plain`, { headers: { 'If-None-Match': sameValue.headers.etag } });
    t.equal(plain.status, 200, '/plain follows the state');
    t.equal(plain.text, '2');
});

t.test('a listing tag changes when a listed state does', async t => {
    const path = '/v1/states?filter=0_userdata.0.cond.*';
    const before = (await iob.request(path)).headers.etag;
    await iob.request('/v1/state/0_userdata.0.cond.str', { method: 'PATCH', body: { val: 'b' } });
    const after = await iob.request(path, { headers: { 'If-None-Match': before } });
    t.equal(after.status, 200);
    t.equal(after.json['0_userdata.0.cond.str'].val, 'b');
});

t.test('an object tag changes after a merge that keeps its ts', async t => {
    const path = '/v1/object/0_userdata.0.cond.str';
    const before = (await iob.request(path)).headers.etag;
    t.equal((await iob.request(path, { method: 'PUT', body: { common: { desc: 'changed' } } })).status, 200);
    const after = await iob.request(path, { headers: { 'If-None-Match': before } });
    t.equal(after.status, 200);
    t.equal(after.json.common.desc, 'changed');
});

t.test('If-Modified-Since: 304 when unchanged since, ignored when If-None-Match is sent', async t => {
    const path = '/v1/state/0_userdata.0.cond.num';
    const first = await iob.request(path);
    const lastModified = first.headers['last-modified'];
    t.equal(lastModified, new Date(first.json.ts).toUTCString());
    t.equal((await iob.request(path, { headers: { 'If-Modified-Since': lastModified } })).status, 304);
    t.equal((await iob.request(path, { headers: { 'If-Modified-Since': new Date(first.json.ts - 5000).toUTCString() } })).status, 200);
    t.equal((await iob.request(path, { headers: { 'If-Modified-Since': 'not a date' } })).status, 200);
    t.equal((await iob.request(path, { headers: { 'If-Modified-Since': lastModified, 'If-None-Match': '"other"' } })).status, 200, 'If-None-Match decides');
});

t.test('a reader without the read right gets 403, never 304, and no ETag', async t => {
    const etag = (await iob.request('/v1/state/0_userdata.0.cond.num')).headers.etag;
    for (const path of ['/v1/state/0_userdata.0.cond.num', '/v1/state/0_userdata.0.cond.num/plain', '/v1/object/0_userdata.0.cond.num']) {
        const res = await blind.request(path, { headers: { 'If-None-Match': '*' } });
        t.equal(res.status, 403, path);
        t.equal(res.headers.etag, undefined, `${path}: no ETag`);
        t.equal((await blind.request(path, { headers: { 'If-None-Match': etag } })).status, 403);
    }
});

t.test('bad validator headers never fail the read', async t => {
    for (const header of ['', 'garbage', '"unterminated', 'W/', ',,,', '"a" "b"', 'x'.repeat(4000)]) {
        const res = await iob.request('/v1/state/0_userdata.0.cond.num', { headers: { 'If-None-Match': header, 'If-Modified-Since': header } });
        t.equal(res.status, 200, JSON.stringify(header.slice(0, 20)));
    }
});

t.test('docs assets live under a versioned path and are immutable; the page is no-cache', async t => {
    const page = await iob.request('/api-doc/');
    t.equal(page.headers['cache-control'], 'no-cache');
    const assets = [...page.text.matchAll(/(?:src|href)="(static\/[^"]+)"/g)].map(m => m[1]);
    t.ok(assets.length >= 5, 'relative versioned asset paths');
    for (const asset of assets) {
        const res = await iob.request(`/api-doc/${asset}`);
        t.equal(res.status, 200, asset);
        t.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable', asset);
    }
    const wrongVersion = await iob.request(assets[0].replace(/static\/[^/]+\//, '/api-doc/static/0.0.0-0/'));
    t.equal(wrongVersion.status, 404, 'another version is not served as immutable');
    const extension = await iob.request('/rest-api/api-doc');
    t.match(extension.text, /"api-doc\/static\//, 'without the trailing slash the assets go through api-doc/');
});
