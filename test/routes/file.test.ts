import { randomBytes } from 'node:crypto';
import t from 'tap';
import { startInProcess, type InProcessHost } from '../support/in-process';
import { appFixture, type AppFixture } from '../support/in-process-fixture';
import { checkedFetch } from '../support/response-check';

const META = 'restapi-files.0';
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff, 0x10, 0x80]);

let host: InProcessHost;
let iob: AppFixture;
let limited: AppFixture;

async function createMeta(fixture: AppFixture): Promise<void> {
    await fixture.storage.objects.setObjectAsync(META, { _id: META, type: 'meta', common: { name: 'route files', type: 'meta.user' }, native: {} });
}

t.before(async () => {
    host = await startInProcess();
    // a real server: multipart uploads over 10 MB, downloads and a streamed body go through fetch
    iob = await appFixture(host, {}, { serve: true });
    await createMeta(iob);
    // one storage for both apps: the meta object is already there
    limited = await appFixture(host, { defaultUser: 'limited' });
    await limited.createUser('limited', { file: { read: false, write: false, list: true, delete: false, create: false } });
});
t.teardown(async () => {
    await iob?.close();
    await limited?.close();
    await host?.stop();
});

const exists = (name: string): Promise<boolean> => iob.storage.objects.fileExists(META, name);
const stored = async (name: string): Promise<Buffer> => Buffer.from((await iob.storage.objects.readFile(META, name)).file);

/** A multipart body built by hand, so tests control the field name and can stream it. */
function multipart(field: string, data: Buffer, fileName = 'upload.bin'): { body: Buffer; type: string } {
    const boundary = '----restapitest' + randomBytes(8).toString('hex');
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${fileName}"\r\nContent-Type: application/octet-stream\r\n\r\n`;
    return { body: Buffer.concat([Buffer.from(head), data, Buffer.from(`\r\n--${boundary}--\r\n`)]), type: `multipart/form-data; boundary=${boundary}` };
}

async function download(path: string): Promise<{ status: number; type: string | null; body: Buffer }> {
    const res = await checkedFetch(iob.baseUrl + path);
    return { status: res.status, type: res.headers.get('content-type'), body: Buffer.from(await res.arrayBuffer()) };
}

t.test('a binary file over 10 MB goes up as multipart and comes back byte for byte', async t => {
    const data = randomBytes(10 * 1024 * 1024 + 12345);
    const form = new FormData();
    form.append('file', new Blob([data]), 'big.bin');
    const res = await checkedFetch(`${iob.baseUrl}/v1/file/${META}/big/nested/data.bin`, { method: 'POST', body: form });
    t.equal(res.status, 200);
    t.same(await res.json(), { success: true });
    t.ok((await stored('big/nested/data.bin')).equals(data), 'stored unchanged');
    const back = await download(`/v1/file/${META}/big/nested/data.bin`);
    t.equal(back.status, 200);
    t.equal(back.type, 'application/octet-stream');
    t.equal(back.body.length, data.length);
    t.ok(back.body.equals(data), 'downloaded unchanged');
});

t.test('a raw body is stored as the file; %2F and / in the name are the same', async t => {
    let res = await iob.request(`/v1/file/${META}/raw%2Fpic.png`, { method: 'POST', raw: PNG, headers: { 'Content-Type': 'application/octet-stream' } });
    t.same(res.json, { success: true });
    t.ok((await stored('raw/pic.png')).equals(PNG));
    const back = await download(`/v1/file/${META}/raw/pic.png`);
    t.equal(back.type, 'image/png', 'the type comes from the file name');
    t.ok(back.body.equals(PNG));
    res = await iob.request(`/v1/file/${META}/texts/hello.txt`, { method: 'POST', raw: 'Hello <b>', headers: { 'Content-Type': 'text/plain' } });
    t.equal(res.status, 200);
    res = await iob.request(`/v1/file/${META}/texts%2Fhello.txt`);
    t.equal(res.text, 'Hello <b>');
    t.equal(res.headers['content-type'], 'text/plain; charset=utf-8');
});

t.test('an upload without a file answers 422 No file provided.', async t => {
    const other = multipart('picture', PNG);
    let res = await iob.request(`/v1/file/${META}/none/a.bin`, { method: 'POST', raw: other.body, headers: { 'Content-Type': other.type } });
    t.equal(res.status, 422);
    t.same(res.json, { error: 'No file provided.' });
    res = await iob.request(`/v1/file/${META}/none/a.bin`, { method: 'POST' });
    t.equal(res.status, 422);
    res = await iob.request(`/v1/file/${META}/none/a.bin`, { method: 'POST', raw: 'x', headers: { 'Content-Type': 'multipart/form-data' } });
    t.equal(res.status, 400, 'multipart without boundary');
    t.notOk(await exists('none/a.bin'));
});

t.test('a missing file is 404 on read and on delete', async t => {
    let res = await iob.request(`/v1/file/${META}/missing/file.txt`);
    t.equal(res.status, 404);
    t.match(res.json, { error: 'Not exists' });
    res = await iob.request(`/v1/file/${META}/missing/file.txt`, { method: 'DELETE' });
    t.equal(res.status, 404);
    t.match(res.json, { error: 'Not exists' });
});

t.test('delete removes a file, or a folder with everything in it', async t => {
    await iob.storage.objects.writeFileAsync(META, 'del/one.txt', '1');
    await iob.storage.objects.writeFileAsync(META, 'del/sub/two.txt', '2');
    let res = await iob.request(`/v1/file/${META}/del/one.txt`, { method: 'DELETE' });
    t.same(res.json, { success: true });
    t.notOk(await exists('del/one.txt'));
    t.ok(await exists('del/sub/two.txt'));
    res = await iob.request(`/v1/file/${META}/del`, { method: 'DELETE' });
    t.same(res.json, { success: true });
    t.notOk(await exists('del/sub/two.txt'));
});

t.test('a name with a .. segment is refused before storage', async t => {
    await iob.storage.objects.writeFileAsync(META, 'safe/keep.txt', 'keep');
    for (const method of ['GET', 'POST', 'DELETE']) {
        const res = await iob.request(`/v1/file/${META}/safe%2F..%2F..%2Fescape.txt`, { method, raw: method === 'POST' ? 'x' : undefined });
        t.equal(res.status, 422, method);
        t.match(res.json.error, /Argument 'fileName'.*"\.\."/);
    }
    t.notOk(await iob.storage.objects.fileExists(META, '../escape.txt'));
    t.ok(await exists('safe/keep.txt'));
});

t.test('an unknown object has no files; a write into an object that is no meta object is refused', async t => {
    let res = await iob.request('/v1/file/nothing.0/x.txt');
    t.equal(res.status, 404);
    res = await iob.request('/v1/file/system.config/x.txt', { method: 'POST', raw: 'x' });
    t.equal(res.status, 422);
    t.match(res.json.error, /is not an object of type "meta"/);
});

t.test('without file rights every file route answers 403 and changes nothing', async t => {
    await limited.storage.objects.writeFileAsync(META, 'keep/a.txt', 'keep');
    for (const method of ['GET', 'POST', 'DELETE']) {
        const res = await limited.request(`/v1/file/${META}/keep/a.txt`, { method, raw: method === 'POST' ? 'changed' : undefined });
        t.equal(res.status, 403, method);
        t.same(res.json, { error: 'permissionError' });
    }
    t.equal((await limited.storage.objects.readFile(META, 'keep/a.txt')).file.toString(), 'keep');
});

t.test('a body over bodyLimit answers 413 and stores nothing', async t => {
    await iob.restart({ bodyLimit: 4096 });
    const data = randomBytes(10_000);
    const form = multipart('file', data);
    let res = await iob.request(`/v1/file/${META}/limit/declared.bin`, { method: 'POST', raw: form.body, headers: { 'Content-Type': form.type } });
    t.equal(res.status, 413);
    t.type(res.json.error, 'string');
    res = await iob.request(`/v1/file/${META}/limit/raw.bin`, { method: 'POST', raw: data, headers: { 'Content-Type': 'application/octet-stream' } });
    t.equal(res.status, 413);
    // without Content-Length the limit is counted while the multipart body streams in
    const stream = new ReadableStream({
        start(controller) {
            for (let i = 0; i < form.body.length; i += 1000) {
                controller.enqueue(form.body.subarray(i, i + 1000));
            }
            controller.close();
        },
    });
    const init = { method: 'POST', body: stream, duplex: 'half', headers: { 'Content-Type': form.type } } as RequestInit;
    // the server answers 413 and closes the connection: a client still sending may see the close first
    const outcome = await checkedFetch(`${iob.baseUrl}/v1/file/${META}/limit/streamed.bin`, init).then(
        async streamed => (await streamed.arrayBuffer(), streamed.status),
        (err: { cause?: { code?: string } }) => {
            if (err.cause?.code !== 'EPIPE' && err.cause?.code !== 'ECONNRESET') {
                throw err;
            }
            return 'closed while sending';
        },
    );
    t.ok(outcome === 413 || outcome === 'closed while sending', `refused: ${outcome}`);
    for (const name of ['declared.bin', 'raw.bin', 'streamed.bin']) {
        t.notOk(await exists(`limit/${name}`), name);
    }
    const small = multipart('file', randomBytes(1000));
    res = await iob.request(`/v1/file/${META}/limit/small.bin`, { method: 'POST', raw: small.body, headers: { 'Content-Type': small.type } });
    t.equal(res.status, 200, 'a file under the limit is stored');
    await iob.restart({ bodyLimit: 104857600 });
});
