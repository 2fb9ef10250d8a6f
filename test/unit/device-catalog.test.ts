import t from 'tap';
import { ChangeFeed } from '../../src/storage/change-feed';
import { DeviceCatalog } from '../../src/objects/device-catalog';
import { detectDevices, detectionCount, type DeviceSnapshot } from '../../src/objects/device-detection';
import type { StoragePort, StorageWrite } from '../../src/storage/port';
import { DEVICE_FIXTURES } from '../support/device-fixtures';
import type { Timers } from '../../src/instance/timers';

/** The process's own timers in place of the adapter's. */
const TIMERS = { setTimeout, clearTimeout, setInterval, clearInterval } as unknown as Timers;

/** A port that answers the detection's views from `objects` (the fixtures) and counts how often they were read. */
function fakePort(objects: Record<string, ioBroker.Object> = Object.fromEntries(DEVICE_FIXTURES.flatMap(f => f.objects).map(o => [o._id, o]))) {
    let writeListener: (write: StorageWrite) => void = () => undefined;
    const port = {
        views: 0,
        objects,
        async getObjectViewAsync(_design: string, type: string) {
            if (type === 'state') {
                port.views++;
            }
            return { rows: Object.values(objects).filter(o => o.type === type).map(o => ({ id: o._id, value: o })) };
        },
        async getForeignObjectAsync(id: string) {
            return id === 'system.config' ? { _id: id, type: 'config', common: { language: 'de' } } : (objects[id] ?? null);
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
    const catalog = new DeviceCatalog(port as unknown as StoragePort, feed, () => usable, TIMERS);
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

    const detected = detectionCount.roots;
    feed.emit('object', 'system.config', null);
    const other = await catalog.snapshot();
    t.not(other, first, 'the system language: detected again');
    t.equal(detectionCount.roots, detected, 'without type-detector: the language changes no device');
    feed.emit('object', 'enum.rooms.kitchen', enumObject('enum.rooms.kitchen', ['hm-rpc.0.OEQ0000001']));
    const [a, b] = await Promise.all([catalog.snapshot(), catalog.snapshot()]);
    t.not(a, other, 'an enum');
    t.equal(a, b, 'two requests share one detection');
    port.write({ kind: 'state', id: 'hm-rpc.0.x.1.LEVEL', recursive: false });
    t.equal(await catalog.snapshot(), a, 'a state write changes no device');
    port.write({ kind: 'object', id: 'hm-rpc.0.x.1', recursive: false });
    t.not(await catalog.snapshot(), a, 'an own object write is known before its notification');
    t.equal(port.views, 1, 'changes are put into the detection before, nothing is read again');

    usable = false;
    await catalog.snapshot();
    await catalog.snapshot();
    t.equal(port.views, 3, 'while notifications may be missed, every request reads and detects anew');
});

/** What a detection answers, without what it keeps for the next one. */
function answer(snapshot: DeviceSnapshot) {
    const { devices, rooms, functions, language } = snapshot;
    return { devices, rooms, functions, language, ids: [...snapshot.byId.keys()] };
}

const stateObject = (id: string, role: string, type: string, write = false): ioBroker.Object =>
    ({ _id: id, type: 'state', common: { name: id, role, type, read: true, write }, native: {} }) as ioBroker.Object;
const enumObject = (id: string, members: string[]): ioBroker.Object =>
    ({ _id: id, type: 'enum', common: { name: id, members }, native: {} }) as ioBroker.Object;

t.test("objects no detection reads (a token any caller may make or drop) leave the devices as they are", async t => {
    const port = fakePort();
    const feed = new ChangeFeed(port);
    const catalog = new DeviceCatalog(port as unknown as StoragePort, feed, () => true, TIMERS, 'rest-api.0');
    const first = await catalog.snapshot();
    const token = { _id: 'rest-api.0.tokens.abc', type: 'config', common: { name: 'token' }, native: {} } as unknown as ioBroker.Object;
    port.write({ kind: 'object', id: token._id } as StorageWrite);
    feed.emit('object', token._id, token);
    feed.emit('object', token._id, null);
    feed.emit('object', 'javascript.0.scriptEnabled.x', { ...token, _id: 'javascript.0.scriptEnabled.x', type: 'meta' } as ioBroker.Object);
    t.equal(await catalog.snapshot(), first, 'the same detection, not a new one');
    const channel = { _id: 'rest-api.0.made', type: 'channel', common: { name: 'made' }, native: {} } as unknown as ioBroker.Object;
    feed.emit('object', channel._id, channel);
    const second = await catalog.snapshot();
    t.not(second, first, 'a channel, even in the own namespace, is read');
    feed.emit('object', 'system.config', { _id: 'system.config', type: 'config', common: { language: 'en' }, native: {} } as unknown as ioBroker.Object);
    t.not(await catalog.snapshot(), second, 'system.config, though of type config, is read for the language');
});

t.test('a change runs type-detector only where it touches; the result is that of a full detection', async t => {
    const port = fakePort();
    const { objects } = port;
    objects['enum.rooms.kitchen'] = enumObject('enum.rooms.kitchen', ['hm-rpc.0.OEQ0000003.1.LEVEL']);
    objects['enum.functions.light'] = enumObject('enum.functions.light', ['hue.0.Hallway_ceiling']);
    const feed = new ChangeFeed(port);
    const catalog = new DeviceCatalog(port as unknown as StoragePort, feed, () => true, TIMERS);
    const first = await catalog.snapshot();
    const roots = first.memo.roots.size;
    t.ok(roots >= DEVICE_FIXTURES.length, `${roots} roots`);

    /** Changes `id` as an adapter would, then compares with a full detection; answers how many roots were detected. */
    const change = async (what: string, id: string, obj: ioBroker.Object | null): Promise<number> => {
        if (obj) {
            objects[id] = obj;
        } else {
            delete objects[id];
        }
        feed.emit('object', id, obj);
        const before = detectionCount.roots;
        const got = await catalog.snapshot();
        const detected = detectionCount.roots - before;
        t.same(answer(got), answer(detectDevices({ ...objects }, 'de')), `${what}: as a full detection`);
        return detected;
    };
    const dimmerLevel = objects['hm-rpc.0.OEQ0000001.1.LEVEL'];
    t.ok((await change('a state renamed', dimmerLevel._id, { ...dimmerLevel, common: { ...dimmerLevel.common, name: 'x' } } as ioBroker.Object)) <= 2, 'its channel and the channel beside it');
    t.equal(await change('a room gets a member', 'enum.rooms.kitchen', enumObject('enum.rooms.kitchen', ['hm-rpc.0.OEQ0000003.1.LEVEL', 'mqtt.0.led_strip'])), 0, 'a room: no detection');
    t.ok((await change('a function gets a member', 'enum.functions.light', enumObject('enum.functions.light', ['hue.0.Hallway_ceiling', 'mqtt.0.bath.climate']))) <= 1, 'a function: the new member');
    const plug = 'zigbee.0.00158d0009999999';
    t.ok((await change('a new device', plug, { _id: plug, type: 'device', common: { name: 'Plug' }, native: {} } as ioBroker.Object)) <= 1);
    t.ok((await change('its state', `${plug}.state`, stateObject(`${plug}.state`, 'switch', 'boolean', true))) <= 1);
    t.ok((await change('a state of another device goes', 'hm-rpc.0.OEQ0000002.4.ACTUAL_TEMPERATURE', null)) <= 1);
    t.ok((await change('the dimmer loses its device object', 'hm-rpc.0.OEQ0000001', null)) <= 2);
    t.ok((await change('a lone state of a user in a room', '0_userdata.0.lamp', stateObject('0_userdata.0.lamp', 'switch.light', 'boolean', true))) <= 1);
    await change('the plug is gone', plug, null);
    await change('its state too', `${plug}.state`, null);
});
