import t from 'tap';
import { createUser } from '../support/iobroker';
import { startInProcess, type InProcessApp, type InProcessHost } from '../support/in-process';
import { checkedFetch } from '../support/response-check';

const META = 'restapi-test.0';
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff, 0x10, 0x80, 0x7f]);
const NO_FILE_RIGHTS = { file: { read: false, write: false, list: false, delete: false, create: false } };
const ALL_FILE_RIGHTS = { file: { read: true, write: true, list: true, delete: true, create: true } };

let host: InProcessHost;
let app: InProcessApp;
let limited: InProcessApp;

async function createMeta(): Promise<void> {
    await host.storage.objects.setObjectAsync(META, { _id: META, type: 'meta', common: { name: 'test files', type: 'meta.user' }, native: {} });
}

t.before(async () => {
    host = await startInProcess();
    app = await host.app();
    await createMeta();
    limited = await host.app({ defaultUser: 'limited' });
    await createUser(host.storage, 'limited', NO_FILE_RIGHTS);
    await createUser(host.storage, 'member', ALL_FILE_RIGHTS);
});
t.teardown(async () => {
    await app?.close();
    await limited?.close();
    await host?.stop();
});

const query = (params: Record<string, string>): string => new URLSearchParams({ adapter: META, ...params }).toString();
const withQuery = (path: string, params: Record<string, string> = {}): string => `${path}?${query(params)}`;

// both apps serve the same storage
const write = (name: string, data: string | Buffer): Promise<void> => host.storage.objects.writeFileAsync(META, name, data);
const exists = (name: string): Promise<boolean> => host.storage.objects.fileExists(META, name);
const read = async (name: string): Promise<string | Buffer> => (await host.storage.objects.readFile(META, name)).file;
const list = async (dir: string): Promise<{ file: string; isDir: boolean; acl?: Record<string, unknown> }[]> => host.storage.objects.readDirAsync(META, dir);

async function bytes(path: string): Promise<{ status: number; type: string | null; body: Buffer }> {
    const res = await checkedFetch((await app.serve()) + path);
    return { status: res.status, type: res.headers.get('content-type'), body: Buffer.from(await res.arrayBuffer()) };
}

t.test('readFile answers [data, mimeType]: text as string, binary as Buffer JSON', async t => {
    await write('texts/hello.txt', 'Hello');
    await write('img/logo.png', PNG);
    let res = await app.request(withQuery('/v1/command/readFile', { fileName: 'texts/hello.txt' }));
    t.same(res.json, { error: null, results: ['Hello', 'text/plain'] });
    res = await app.request('/v1/command/readFile', { method: 'POST', body: { adapter: META, fileName: 'img/logo.png' } });
    t.same(res.json, { error: null, results: [{ type: 'Buffer', data: [...PNG] }, 'image/png'] });
    res = await app.request(withQuery('/v1/command/readFile', { fileName: 'texts/missing.txt' }));
    t.equal(res.status, 404);
    t.same(res.json, { error: 'Not exists', results: [] });
    res = await app.request(`/v1/command/readFile?adapter=${META}`);
    t.equal(res.status, 422);
    t.match(res.json.error, /'fileName' not found/);
    res = await app.request(withQuery('/v1/command/readFile', { adapter: '', fileName: 'texts/hello.txt' }));
    t.equal(res.status, 422);
    t.match(res.json.error, /'adapter'/);
});

t.test('readFile binary: raw bytes with the stored type, for binary and text files', async t => {
    await write('img/logo.png', PNG);
    await write('texts/hello.txt', 'Hello');
    await write('data/config.json', '{"a":1}');
    let res = await bytes(withQuery('/v1/command/readFile', { fileName: 'img/logo.png', binary: 'true' }));
    t.equal(res.status, 200);
    t.equal(res.type, 'image/png');
    t.same([...res.body], [...PNG]);
    res = await bytes(`/v1/command/readFile?adapter=${META}&fileName=texts/hello.txt&binary`);
    t.equal(res.type, 'text/plain');
    t.equal(res.body.toString(), 'Hello');
    res = await bytes(`/v1/command/readFile?adapter=${META}&fileName=img/logo.png?binary`);
    t.equal(res.type, 'image/png', 'the 4.0.2 suffix form ?binary');
    t.same([...res.body], [...PNG]);
    res = await bytes(`/v1/command/readFile?adapter=${META}&fileName=data/config.json?binary`);
    t.equal(res.type, 'application/json');
    t.equal(res.body.toString(), '{"a":1}');
    res = await bytes(withQuery('/v1/command/readFile', { fileName: 'img/logo.png', binary: 'false' }));
    t.match(res.type, /^application\/json/, 'binary=false keeps the JSON answer');
});

t.test('a file stored without a type gets it from its extension', async t => {
    await write('old/picture.webp', PNG);
    const metaId = host.storage.objects.getFileId(META, 'old/picture.webp', true);
    const { mimeType, ...meta } = JSON.parse(await host.storage.objects.client.get(metaId));
    t.equal(mimeType, 'image/webp');
    await host.storage.objects.client.set(metaId, JSON.stringify(meta));
    t.equal((await host.storage.objects.readFile(META, 'old/picture.webp')).mimeType, undefined);
    const raw = await bytes(withQuery('/v1/command/readFile', { fileName: 'old/picture.webp', binary: 'true' }));
    t.equal(raw.type, 'image/webp');
    t.same([...raw.body], [...PNG]);
    const res = await app.request(withQuery('/v1/command/readFile64', { fileName: 'old/picture.webp' }));
    t.same(res.json.results, [PNG.toString('base64'), 'image/webp']);
});

t.test('readFile64 answers base64, JSON URI-encoded first as in 4.0.2', async t => {
    await write('texts/hello.txt', 'Hello');
    await write('img/logo.png', PNG);
    await write('data/config.json', '{"a":1}');
    let res = await app.request(withQuery('/v1/command/readFile64', { fileName: 'texts/hello.txt' }));
    t.same(res.json, { error: null, results: [Buffer.from('Hello').toString('base64'), 'text/plain'] });
    res = await app.request(withQuery('/v1/command/readFile64', { fileName: 'img/logo.png' }));
    t.same(res.json, { error: null, results: [PNG.toString('base64'), 'image/png'] });
    res = await app.request(withQuery('/v1/command/readFile64', { fileName: 'data/config.json' }));
    t.same(res.json.results, [Buffer.from(encodeURIComponent('{"a":1}')).toString('base64'), 'application/json']);
    t.match(res.json.results[0], /^JTdCJTIy/);
    const raw = await bytes(`/v1/command/readFile64?adapter=${META}&fileName=img/logo.png?binary`);
    t.equal(raw.type, 'image/png');
    t.same([...raw.body], [...PNG]);
    res = await app.request(withQuery('/v1/command/readFile64', { fileName: 'nothing.bin' }));
    t.equal(res.status, 404);
    t.same(res.json, { error: 'Not exists', results: [] });
    res = await app.request(`/v1/command/readFile64?fileName=x`);
    t.equal(res.status, 422);
    t.match(res.json.error, /'adapter' not found/);
});

t.test('writeFile64 stores the decoded bytes, with an optional mode', async t => {
    let res = await app.request('/v1/command/writeFile64', { method: 'POST', body: { adapter: META, fileName: 'up/new.png', data64: PNG.toString('base64') } });
    t.same(res.json, { error: null, results: [] });
    t.same([...(await read('up/new.png'))], [...PNG]);
    res = await app.request(withQuery('/v1/command/writeFile64', { fileName: 'up/mode.txt', data64: Buffer.from('moded').toString('base64'), options: '{"mode":"600"}' }));
    t.equal(res.status, 200);
    t.equal(await read('up/mode.txt'), 'moded');
    t.equal((await list('up')).find(e => e.file === 'mode.txt')?.acl?.permissions, 0x600);

    res = await app.request(withQuery('/v1/command/writeFile64', { fileName: 'up/empty.txt', data64: '' }));
    t.equal(res.status, 422);
    t.same(res.json, { error: 'No data provided', results: [] });
    res = await app.request(withQuery('/v1/command/writeFile64', { fileName: 'up/empty.txt' }));
    t.equal(res.status, 422);
    t.match(res.json.error, /'data64' not found/);
    res = await app.request(withQuery('/v1/command/writeFile64', { fileName: 'up/empty.txt', data64: 'data:image/png;base64,AAAA' }));
    t.equal(res.status, 422);
    t.match(res.json.error, /'data64'/);
    res = await app.request(withQuery('/v1/command/writeFile64', { fileName: 'up/empty.txt', data64: 'AAAA', options: '{"mode":"rwx"}' }));
    t.equal(res.status, 422);
    t.match(res.json.error, /'options'/);
    t.notOk(await exists('up/empty.txt'));
    res = await app.request(withQuery('/v1/command/writeFile64', { adapter: 'system.config', fileName: 'x.txt', data64: 'AAAA' }));
    t.equal(res.status, 422);
    t.equal(res.json.error, 'system.config is not an object of type "meta"');
});

t.test('unlink deletes a folder recursively; a missing one is no error', async t => {
    await write('tree/a.txt', 'a');
    await write('tree/sub/b.txt', 'b');
    let res = await app.request(withQuery('/v1/command/unlink', { name: 'tree' }));
    t.same(res.json, { error: null, results: [] });
    t.notOk(await exists('tree/a.txt'));
    t.notOk(await exists('tree/sub/b.txt'));
    t.same(await list('tree'), []);
    res = await app.request(withQuery('/v1/command/unlink', { name: 'nothing/here' }));
    t.same(res.json, { error: null, results: [] });
    await write('single.txt', 's');
    res = await app.request(withQuery('/v1/command/unlink', { name: 'single.txt' }));
    t.equal(res.status, 200);
    t.notOk(await exists('single.txt'));
    res = await app.request(withQuery('/v1/command/unlink'));
    t.equal(res.status, 422);
    t.match(res.json.error, /'name' not found/);
});

t.test('deleteFile deletes a file, or a folder with its content', async t => {
    await write('del/one.txt', '1');
    let res = await app.request(withQuery('/v1/command/deleteFile', { name: 'del/one.txt' }));
    t.same(res.json, { error: null });
    t.notOk(await exists('del/one.txt'));
    await write('del2/x.txt', 'x');
    await write('del2/y.txt', 'y');
    res = await app.request(withQuery('/v1/command/deleteFile', { name: 'del2' }));
    t.equal(res.status, 200);
    t.equal(res.json.error, null, 'the list of deleted entries depends on the storage backend');
    t.notOk(await exists('del2/x.txt'));
    t.notOk(await exists('del2/y.txt'));
    res = await app.request(withQuery('/v1/command/deleteFile', { name: 'del/one.txt' }));
    t.equal(res.status, 404);
    t.equal(res.json.error, 'Not exists');
    res = await app.request(withQuery('/v1/command/deleteFile'));
    t.equal(res.status, 422);
    t.match(res.json.error, /'name' not found/);
});

t.test('deleteFolder deletes a folder with sub-folders', async t => {
    await write('gone/a.txt', 'a');
    await write('gone/deep/b.txt', 'b');
    let res = await app.request('/v1/command/deleteFolder', { method: 'POST', body: { adapter: META, name: 'gone' } });
    t.same(res.json, { error: null, results: [] });
    t.notOk(await exists('gone/deep/b.txt'));
    t.same(await list('gone'), []);
    res = await app.request('/v1/command/deleteFolder', { method: 'POST', body: { name: 'gone' } });
    t.equal(res.status, 422);
    t.match(res.json.error, /'adapter' not found/);
});

t.test('renameFile moves one file', async t => {
    await write('mv/a.txt', 'content');
    let res = await app.request(withQuery('/v1/command/renameFile', { oldName: 'mv/a.txt', newName: 'mv/b.txt' }));
    t.same(res.json, { error: null, results: [] });
    t.notOk(await exists('mv/a.txt'));
    t.equal(await read('mv/b.txt'), 'content');
    res = await app.request(withQuery('/v1/command/renameFile', { oldName: 'mv/a.txt', newName: 'mv/c.txt' }));
    t.equal(res.status, 404);
    t.equal(res.json.error, 'Not exists');
    res = await app.request(withQuery('/v1/command/renameFile', { oldName: 'mv/b.txt' }));
    t.equal(res.status, 422);
    t.match(res.json.error, /'newName' not found/);
    t.ok(await exists('mv/b.txt'));
});

t.test('rename moves a folder recursively; a missing one is no error', async t => {
    await write('rdir/a.txt', 'a');
    await write('rdir/sub/b.txt', 'b');
    let res = await app.request(withQuery('/v1/command/rename', { oldName: 'rdir', newName: 'rdir2' }));
    t.same(res.json, { error: null, results: [] });
    t.equal(await read('rdir2/a.txt'), 'a');
    t.equal(await read('rdir2/sub/b.txt'), 'b');
    t.same(await list('rdir'), []);
    res = await app.request(withQuery('/v1/command/rename', { oldName: 'no/such', newName: 'other' }));
    t.same(res.json, { error: null, results: [] });
    res = await app.request(withQuery('/v1/command/rename', { newName: 'x' }));
    t.equal(res.status, 422);
    t.match(res.json.error, /'oldName' not found/);
});

t.test('mkdir creates a folder that readDir lists', async t => {
    let res = await app.request(withQuery('/v1/command/mkdir', { dirName: 'made/deep' }));
    t.same(res.json, { error: null, results: [] });
    t.match(await list('made'), [{ file: 'deep', isDir: true }]);
    res = await app.request(withQuery('/v1/command/mkdir'));
    t.equal(res.status, 422);
    t.match(res.json.error, /'dirName' not found/);
});

t.test('readDir lists files and folders; an empty adapter lists the meta objects', async t => {
    await write('listing/file.txt', 'five!');
    await write('listing/sub/inner.txt', 'x');
    let res = await app.request(withQuery('/v1/command/readDir', { dirName: 'listing' }));
    t.equal(res.status, 200);
    t.match(res.json, {
        error: null,
        result: [{ file: 'file.txt', isDir: false, stats: { size: 5 }, acl: { owner: 'system.user.admin' } }, { file: 'sub', isDir: true }],
    });
    t.equal(res.json.result.length, 2);
    res = await app.request(withQuery('/v1/command/readDir', { adapter: '', dirName: '' }));
    t.ok(res.json.result.some((e: { file: string; isDir: boolean }) => e.file === META && e.isDir));
    res = await app.request(withQuery('/v1/command/readDir', { dirName: 'nothing', options: '{"filter":true}' }));
    t.same(res.json, { error: null, result: [] });
    res = await app.request(withQuery('/v1/command/readDir', { adapter: 'system.config', dirName: '' }));
    t.equal(res.status, 422);
    t.match(res.json.error, /is not an object of type "meta"/);
    res = await app.request(withQuery('/v1/command/readDir'));
    t.equal(res.status, 422);
    t.match(res.json.error, /'dirName' not found/);
});

t.test('chmodFile changes the mode of a file or a folder', async t => {
    await write('perm/a.txt', 'a');
    await write('perm/b.txt', 'b');
    let res = await app.request(withQuery('/v1/command/chmodFile', { fileName: 'perm/a.txt', options: '{"mode":"600"}' }));
    t.match(res.json, { error: null, result: [{ file: 'a.txt', path: 'perm', acl: { permissions: 0x600 } }] });
    res = await app.request('/v1/command/chmodFile', { method: 'POST', body: { adapter: META, fileName: 'perm', options: { mode: 0x640 } } });
    t.equal(res.json.result.length, 2);
    t.same((await list('perm')).map(e => e.acl?.permissions), [0x640, 0x640]);

    for (const options of [undefined, '{}']) {
        res = await app.request(withQuery('/v1/command/chmodFile', { fileName: 'perm/a.txt', ...(options ? { options } : {}) }));
        t.equal(res.status, 422);
        t.equal(res.json.error, 'no options');
    }
    res = await app.request(withQuery('/v1/command/chmodFile', { fileName: 'perm/a.txt', options: '{"mode":"xyz"}' }));
    t.equal(res.status, 422);
    t.match(res.json.error, /'options'/);
    res = await app.request(withQuery('/v1/command/chmodFile', { options: '{"mode":"600"}' }));
    t.equal(res.status, 422);
    t.match(res.json.error, /'fileName' not found/);
    t.same((await list('perm')).map(e => e.acl?.permissions), [0x640, 0x640], 'refused calls changed nothing');
});

t.test('chownFile changes owner and group; the owner defaults to the caller', async t => {
    await write('own/a.txt', 'a');
    let res = await app.request(withQuery('/v1/command/chownFile', { fileName: 'own/a.txt', options: '{"owner":"system.user.admin","ownerGroup":"system.group.user"}' }));
    t.match(res.json, { error: null, result: [{ file: 'a.txt', acl: { owner: 'system.user.admin', ownerGroup: 'system.group.user' } }] });
    t.match((await list('own'))[0].acl, { ownerGroup: 'system.group.user' });
    res = await app.request(withQuery('/v1/command/chownFile', { fileName: 'own/a.txt', options: '{}' }));
    t.match(res.json.result, [{ acl: { owner: 'system.user.admin', ownerGroup: 'system.group.administrator' } }]);
    res = await app.request(withQuery('/v1/command/chownFile', { fileName: 'own/a.txt' }));
    t.equal(res.status, 422);
    t.equal(res.json.error, 'no options');
    res = await app.request(withQuery('/v1/command/chownFile', { fileName: 'own/a.txt', options: '{"owner":"system.user.nobody"}' }));
    t.equal(res.status, 422);
    t.match(res.json.error, /belongs to no group/);
    t.match((await list('own'))[0].acl, { owner: 'system.user.admin', ownerGroup: 'system.group.administrator' });
});

t.test('fileExists', async t => {
    await write('ex/here.txt', 'x');
    let res = await app.request(withQuery('/v1/command/fileExists', { fileName: 'ex/here.txt' }));
    t.same(res.json, { error: null, result: true });
    res = await app.request(withQuery('/v1/command/fileExists', { fileName: 'ex/not.txt' }));
    t.same(res.json, { error: null, result: false });
    res = await app.request(`/v1/command/fileExists?adapter=${META}`);
    t.equal(res.status, 422);
    t.match(res.json.error, /'fileName' not found/);
});

t.test('names with a ".." segment or control characters are refused before storage', async t => {
    await write('safe/inside.txt', 'x');
    const cases: [string, Record<string, string>, string][] = [
        ['readFile', { fileName: '../system.config' }, 'fileName'],
        ['readFile', { fileName: 'safe/../../x.png?binary' }, 'fileName'],
        ['readFile64', { fileName: 'safe/\u0000.txt' }, 'fileName'],
        ['writeFile64', { fileName: 'safe/../../escape.txt', data64: 'AAAA' }, 'fileName'],
        ['unlink', { name: 'safe/..' }, 'name'],
        ['deleteFile', { name: '..\\safe' }, 'name'],
        ['deleteFolder', { name: '..' }, 'name'],
        ['renameFile', { oldName: 'safe/inside.txt', newName: '../escape.txt' }, 'newName'],
        ['rename', { oldName: 'safe/../safe', newName: 'other' }, 'oldName'],
        ['mkdir', { dirName: 'safe/\n' }, 'dirName'],
        ['readDir', { dirName: '../' }, 'dirName'],
        ['chmodFile', { fileName: '../safe/inside.txt', options: '{"mode":"600"}' }, 'fileName'],
        ['chownFile', { fileName: 'safe/../..', options: '{}' }, 'fileName'],
        ['fileExists', { fileName: '../safe/inside.txt' }, 'fileName'],
    ];
    for (const [name, params, param] of cases) {
        const res = await app.request(withQuery(`/v1/command/${name}`, params));
        t.equal(res.status, 422, `${name} ${JSON.stringify(params)}`);
        t.match(res.json.error, new RegExp(`Argument '${param}'.*"\\.\\."`));
    }
    t.notOk(await exists('escape.txt'));
    t.equal(await read('safe/inside.txt'), 'x');
    t.notOk((await list('safe')).some(e => e.acl?.permissions === 0x600), 'chmodFile changed nothing');
});

t.test('a user without file rights is refused by every file command and changes nothing', async t => {
    await write('keep/a.txt', 'keep');
    const before = (await list('keep')).map(e => [e.file, e.acl]);
    const calls: [string, Record<string, string>][] = [
        ['readFile', { fileName: 'keep/a.txt' }],
        ['readFile64', { fileName: 'keep/a.txt' }],
        ['fileExists', { fileName: 'keep/a.txt' }],
        ['readDir', { dirName: 'keep' }],
        ['writeFile64', { fileName: 'keep/new.txt', data64: 'AAAA' }],
        ['writeFile64', { fileName: 'keep/a.txt', data64: 'AAAA' }],
        ['unlink', { name: 'keep' }],
        ['deleteFile', { name: 'keep/a.txt' }],
        ['deleteFolder', { name: 'keep' }],
        ['renameFile', { oldName: 'keep/a.txt', newName: 'keep/b.txt' }],
        ['rename', { oldName: 'keep', newName: 'moved' }],
        ['mkdir', { dirName: 'keep/dir' }],
        ['chmodFile', { fileName: 'keep/a.txt', options: '{"mode":"777"}' }],
        ['chownFile', { fileName: 'keep/a.txt', options: '{"owner":"system.user.limited","ownerGroup":"system.group.limited_group"}' }],
    ];
    for (const [name, params] of calls) {
        const res = await limited.request(withQuery(`/v1/command/${name}`, params));
        t.equal(res.status, 403, name);
        t.equal(res.json.error, 'permissionError', name);
    }
    t.equal(await read('keep/a.txt'), 'keep');
    t.notOk(await exists('keep/new.txt'));
    t.notOk(await exists('keep/b.txt'));
    t.same(await list('moved'), []);
    t.same((await list('keep')).map(e => [e.file, e.acl]), before);
});

t.test("js-controller's file ACL applies to the caller on every level of recursion", async t => {
    await limited.close();
    limited = await host.app({ defaultUser: 'member' });
    await host.storage.objects.writeFileAsync(META, 'priv/open.txt', 'for everyone', { mode: 0x666 });
    await host.storage.objects.writeFileAsync(META, 'priv/secret.txt', 'admin only', { mode: 0x600 });
    let res = await limited.request(withQuery('/v1/command/readFile', { fileName: 'priv/open.txt' }));
    t.same(res.json, { error: null, results: ['for everyone', 'text/plain'] }, 'the member passes the command ACL');
    res = await limited.request(withQuery('/v1/command/readFile', { fileName: 'priv/secret.txt' }));
    t.equal(res.status, 403, 'a file only its owner may read');
    t.equal(res.json.error, 'permissionError');

    res = await limited.request(withQuery('/v1/command/rename', { oldName: 'priv', newName: 'taken' }));
    t.equal(res.status, 403, 'rename stops at the file the caller may not write');
    t.equal(await read('priv/secret.txt'), 'admin only');
    t.notOk(await exists('taken/secret.txt'));

    const smuggled: [string, Record<string, unknown>][] = [
        ['chmodFile', { mode: 0x666, user: 'system.user.admin', groups: ['system.group.administrator'], acl: ALL_FILE_RIGHTS }],
        ['chownFile', { owner: 'system.user.member', user: 'system.user.admin', groups: ['system.group.administrator'], acl: ALL_FILE_RIGHTS }],
    ];
    for (const [name, options] of smuggled) {
        res = await limited.request(`/v1/command/${name}`, { method: 'POST', body: { adapter: META, fileName: 'priv/secret.txt', options } });
        t.equal(res.status, 403, `${name}: options cannot carry another user or ACL`);
    }
    t.match((await list('priv')).find(e => e.file === 'secret.txt')?.acl, { owner: 'system.user.admin', permissions: 0x600 });

    res = await limited.request(withQuery('/v1/command/unlink', { name: 'priv' }));
    t.equal(res.status, 403, 'the recursive delete runs as the caller, not unrestricted');
    t.equal(res.json.error, 'permissionError');
    t.equal(await read('priv/secret.txt'), 'admin only');
});
