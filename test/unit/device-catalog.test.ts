import t from 'tap';
import { ChangeFeed } from '../../src/storage/change-feed';
import { DeviceCatalog } from '../../src/objects/device-catalog';
import type { StoragePort, StorageWrite } from '../../src/storage/port';
import { DEVICE_FIXTURES } from '../support/device-fixtures';

/** A port that answers the detection's views from the fixtures and counts how often they were read. */
function fakePort() {
    const objects = DEVICE_FIXTURES.flatMap(f => f.objects);
    let writeListener: (write: StorageWrite) => void = () => undefined;
    const port = {
        views: 0,
        async getObjectViewAsync(_design: string, type: string) {
            if (type === 'state') {
                port.views++;
            }
            return { rows: objects.filter(o => o.type === type).map(o => ({ id: o._id, value: o })) };
        },
        async getForeignObjectAsync(id: string) {
            return id === 'system.config' ? { _id: id, type: 'config', common: { language: 'de' } } : null;
        },
        onWrite(listener: (write: StorageWrite) => void) {
            writeListener = listener;
        },
        write: (write: StorageWrite) => writeListener(write),
        subscribeForeignObjectsAsync: async () => undefined,
        unsubscribeForeignObjectsAsync: async () => undefined,
        subscribeForeignStatesAsync: async () => undefined,
        unsubscribeForeignStatesAsync: async () => undefined,
    };
    return port;
}

t.test('detection is kept until an object that can hold a device changes', async t => {
    const port = fakePort();
    const feed = new ChangeFeed(port);
    let usable = true;
    const catalog = new DeviceCatalog(port as unknown as StoragePort, feed, () => usable);
    const first = await catalog.snapshot();
    t.equal(first.devices.length, DEVICE_FIXTURES.length);
    t.equal(first.language, 'de', 'the system language');
    await catalog.snapshot();
    t.equal(port.views, 1, 'a second request detects nothing anew');
    await Promise.all([catalog.snapshot(), catalog.snapshot()]);
    t.equal(port.views, 1);

    for (const id of ['system.user.bob', 'system.group.users', 'system.adapter.hm-rpc.0', 'system.host.x']) {
        feed.emit('object', id, null);
    }
    await catalog.snapshot();
    t.equal(port.views, 1, 'users, groups, instances and hosts leave the devices as they are');

    feed.emit('object', 'system.config', null);
    await catalog.snapshot();
    t.equal(port.views, 2, 'the system language');
    feed.emit('object', 'enum.rooms.kitchen', null);
    await Promise.all([catalog.snapshot(), catalog.snapshot()]);
    t.equal(port.views, 3, 'an enum; two requests share one detection');
    port.write({ kind: 'state', id: 'hm-rpc.0.x.1.LEVEL', recursive: false });
    await catalog.snapshot();
    t.equal(port.views, 3, 'a state write changes no device');
    port.write({ kind: 'object', id: 'hm-rpc.0.x.1', recursive: false });
    await catalog.snapshot();
    t.equal(port.views, 4, 'an own object write is known before its notification');

    usable = false;
    await catalog.snapshot();
    await catalog.snapshot();
    t.equal(port.views, 6, 'while notifications may be missed, every request detects anew');
});
