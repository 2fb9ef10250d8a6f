import t from 'tap';
import { startInProcess, type InProcessHost } from '../support/in-process';
import { appFixture, type AppFixture } from '../support/in-process-fixture';

let host: InProcessHost;
let iob: AppFixture;
let limited: AppFixture;

const enumObject = (id: string, name: string, members: string[] = []): ioBroker.Object =>
    ({ _id: id, type: 'enum', common: { name, members }, native: {} }) as ioBroker.Object;

t.before(async () => {
    host = await startInProcess();
    iob = await appFixture(host);
    await iob.createState('0_userdata.0.lamp', { type: 'boolean' }, true);
    limited = await appFixture(host, { defaultUser: 'reader' });
    await limited.createUser('reader', { object: { read: true, list: false } });
    await limited.createUser('nobody', { object: { read: false, list: false } });
});
t.teardown(async () => {
    await iob?.close();
    await limited?.close();
    await host?.stop();
});

t.test('a room created in the test is listed by category', async t => {
    await iob.storage.objects.setObjectAsync('enum.rooms.test_room', enumObject('enum.rooms.test_room', 'Test room', ['0_userdata.0.lamp']));
    await iob.storage.objects.setObjectAsync('enum.rooms.test_room.corner', enumObject('enum.rooms.test_room.corner', 'Corner'));
    const res = await iob.request('/v1/enum');
    t.equal(res.status, 200);
    t.match(res.json['enum.rooms']['enum.rooms.test_room'], { _id: 'enum.rooms.test_room', type: 'enum', common: { name: 'Test room', members: ['0_userdata.0.lamp'] } });
    t.ok(Object.keys(res.json).every(key => /^enum\.[^.]+$/.test(key)), 'keyed by category');
    t.notOk(res.json['enum.rooms']['enum.rooms'], 'the category object itself is left out');
});

t.test('one category: every enum below it as {_id, common}', async t => {
    for (const id of ['rooms', 'enum.rooms']) {
        const res = await iob.request(`/v1/enum/${id}`);
        t.equal(res.status, 200, id);
        t.same(
            res.json.filter((e: { _id: string }) => e._id.startsWith('enum.rooms.test_room')),
            [
                { _id: 'enum.rooms.test_room', common: { name: 'Test room', members: ['0_userdata.0.lamp'] } },
                { _id: 'enum.rooms.test_room.corner', common: { name: 'Corner', members: [] } },
            ],
        );
    }
    const unknown = await iob.request('/v1/enum/nothing');
    t.equal(unknown.status, 200);
    t.same(unknown.json, [], 'an unknown category is an empty list');
});

t.test('a user who may not list objects gets permissionError', async t => {
    for (const path of ['/v1/enum', '/v1/enum/rooms']) {
        const res = await limited.request(path);
        t.equal(res.status, 403, path);
        t.same(res.json, { error: 'permissionError' });
    }
});

t.test('a user without object.read is refused before js-controller is asked', async t => {
    await limited.restart({ defaultUser: 'nobody' });
    const res = await limited.request('/v1/enum');
    t.equal(res.status, 403);
    t.same(res.json, { error: 'permissionError' });
});
