import t from 'tap';
import { startInProcess, type InProcessHost } from '../support/in-process';
import { appFixture, type AppFixture } from '../support/in-process-fixture';

const META = 'restapi-dirs.0';

let host: InProcessHost;
let iob: AppFixture;
let limited: AppFixture;

async function createMeta(fixture: AppFixture): Promise<void> {
    await fixture.storage.objects.setObjectAsync(META, { _id: META, type: 'meta', common: { name: 'route dirs', type: 'meta.user' }, native: {} });
}

t.before(async () => {
    host = await startInProcess();
    iob = await appFixture(host);
    await createMeta(iob);
    for (const [name, data] of [['tree/a.txt', 'five!'], ['tree/sub/b.txt', 'b'], ['tree/sub/deeper/c.txt', 'c']]) {
        await iob.storage.objects.writeFileAsync(META, name, data);
    }
    // one storage for both apps: the meta object is already there
    limited = await appFixture(host, { defaultUser: 'limited' });
    await limited.createUser('limited', { file: { read: true, write: true, list: false } });
});
t.teardown(async () => {
    await iob?.close();
    await limited?.close();
    await host?.stop();
});

t.test('lists a folder in the 4.0.2 entry shape', async t => {
    const res = await iob.request(`/v1/dir/${META}/tree`);
    t.equal(res.status, 200);
    t.match(res.json, [
        { file: 'a.txt', isDir: false, stats: { size: 5 }, acl: { owner: 'system.user.admin', permissions: Number } },
        { file: 'sub', isDir: true, stats: {} },
    ]);
    t.equal(res.json.length, 2);
    t.type(res.json[0].modifiedAt, 'number');
});

t.test('nested folders: with / or %2F in the path', async t => {
    for (const path of ['tree/sub', 'tree%2Fsub']) {
        const res = await iob.request(`/v1/dir/${META}/${path}`);
        t.equal(res.status, 200, path);
        t.same(
            res.json.map((e: { file: string; isDir: boolean }) => [e.file, e.isDir]),
            [
                ['b.txt', false],
                ['deeper', true],
            ],
        );
    }
    const deepest = await iob.request(`/v1/dir/${META}/tree/sub/deeper/`);
    t.match(deepest.json, [{ file: 'c.txt', isDir: false }]);
});

t.test('the top folder, a missing folder and an unknown object', async t => {
    let res = await iob.request(`/v1/dir/${META}`);
    t.equal(res.status, 200);
    t.match(res.json, [{ file: 'tree', isDir: true }]);
    res = await iob.request(`/v1/dir/${META}/no/such/folder`);
    t.equal(res.status, 200);
    t.same(res.json, [], 'a missing folder lists as [] as in 4.0.2');
    res = await iob.request('/v1/dir/system.config');
    t.equal(res.status, 422);
    t.match(res.json.error, /is not an object of type "meta"/);
});

t.test('a .. segment is refused', async t => {
    const res = await iob.request(`/v1/dir/${META}/tree%2F..%2F..`);
    t.equal(res.status, 422);
    t.match(res.json.error, /Argument 'dirName'.*"\.\."/);
});

t.test('without file.list the listing answers 403', async t => {
    for (const path of [`/v1/dir/${META}`, `/v1/dir/${META}/tree`]) {
        const res = await limited.request(path);
        t.equal(res.status, 403, path);
        t.same(res.json, { error: 'permissionError' });
    }
});
