import t from 'tap';
import { startHookReceiver, type HookReceiver } from '../support/hook-receiver';
import { startInProcess, type InProcessHost } from '../support/in-process';
import { appFixture, type AppFixture } from '../support/in-process-fixture';
import { basic } from '../support/raw-request';
import { openSse, type SseClient } from '../support/sse-client';
import { DEVICE_FIXTURES } from '../support/device-fixtures';

/*
 * Events by device over real HTTP: long polling, URL hooks and event streams subscribed to a device,
 * a room or a function get the device's state changes with device and role, follow the devices as
 * they change, and pass the per-state read rules.
 */

let host: InProcessHost;
let iob: AppFixture;
let authed: AppFixture;
let hooks: HookReceiver;

const DIMMER = 'hm-rpc.0.OEQ0000001.1';
const THERMOSTAT = 'hm-rpc.0.OEQ0000002.4';
const BLIND = 'hm-rpc.0.OEQ0000003.1';
const LIGHT = 'hue.0.Hallway_ceiling';
const SPEAKER = 'sonos.0.root.192_168_1_50';
const LOCK = 'nuki-extended.0.smartlocks.front_door';
const PRIVATE_ACL = { owner: 'system.user.admin', ownerGroup: 'system.group.administrator', object: 0x664, state: 0x600 };

const enumObject = (id: string, members: string[]): ioBroker.Object =>
    ({ _id: id, type: 'enum', common: { name: id.split('.').pop(), members }, native: {} }) as ioBroker.Object;

async function seed(): Promise<void> {
    const { objects } = host.storage;
    for (const fixture of DEVICE_FIXTURES) {
        for (const obj of fixture.objects) {
            await objects.setObjectAsync(obj._id, obj);
        }
        for (const [id, val] of Object.entries(fixture.values)) {
            await write(id, val);
        }
    }
    await objects.setObjectAsync('enum.rooms.kitchen', enumObject('enum.rooms.kitchen', [`${BLIND}.LEVEL`, SPEAKER]));
    await objects.setObjectAsync('enum.functions.shutter', enumObject('enum.functions.shutter', [BLIND]));
    for (const id of [`${DIMMER}.WORKING`, `${LOCK}.locked`]) {
        const obj = (await objects.getObjectAsync(id)) as ioBroker.Object;
        await objects.setObjectAsync(id, { ...obj, acl: PRIVATE_ACL } as ioBroker.Object);
    }
}

const write = (id: string, val: ioBroker.StateValue) =>
    host.storage.states.setStateAsync(id, { val, ack: true, from: 'system.adapter.test.0', ts: Date.now(), lc: Date.now(), q: 0 });
const sleep = (ms: number) => new Promise(r => setTimeout(r, ms));

type Event = { device?: string; role?: string; id: string; state: { val: unknown } };

/** The events one poll of `sid` answers while `act` writes. */
async function pollWhile(app: AppFixture, sid: string, act: () => Promise<unknown>, headers?: Record<string, string>): Promise<Event[]> {
    const poll = app.request(`/v1/polling?sid=${sid}&batch=true&timeout=1500`, { headers });
    await sleep(150);
    await act();
    await sleep(150);
    const res = await poll;
    return res.text ? (JSON.parse(res.text) as Event[]).filter(e => e.id) : [];
}

t.before(async () => {
    hooks = await startHookReceiver();
    host = await startInProcess();
    await seed();
    iob = await appFixture(host, { checkInterval: 0 }, { socket: true });
    authed = await appFixture(host, { auth: true }, { socket: true });
    await authed.createUser('viewer', { object: { read: true, list: true }, state: { read: true, list: true } });
    await authed.createUser('blind', { object: { read: true }, state: { read: false } });
});
t.teardown(async () => {
    await iob?.close();
    await authed?.close();
    await host?.stop();
    hooks?.close();
});

t.test('long polling: the changes of a device carry device and role; a state subscription keeps {id, state}', async t => {
    let res = await iob.request(`/v1/devices/${DIMMER}/subscribe`, { method: 'POST', body: { method: 'polling', sid: 'dev' } });
    t.equal(res.status, 200);
    t.same(res.json, { result: 'OK' });
    res = await iob.request(`/v1/state/${DIMMER}.LEVEL/subscribe?method=polling&sid=plain`);
    t.equal(res.status, 200);
    const plain = iob.request('/v1/polling?sid=plain&batch=true&timeout=1500');
    const got = await pollWhile(iob, 'dev', () => write(`${DIMMER}.LEVEL`, 55));
    t.same(got, [{ device: DIMMER, role: 'SET', id: `${DIMMER}.LEVEL`, state: got[0]?.state }]);
    t.match(got[0].state, { val: 55, ack: true });
    const old = JSON.parse((await plain).text) as Array<Record<string, unknown>>;
    t.same(Object.keys(old[0]), ['id', 'state'], 'the 4.0.2 shape, without device and role');
    res = await iob.request(`/v1/devices/${DIMMER}/subscribe`, { method: 'DELETE', body: { method: 'polling', sid: 'dev' } });
    t.same(res.json, { result: 'OK' });
});

t.test('a room subscription follows a device joining and leaving the room', async t => {
    const res = await iob.request('/v1/rooms/enum.rooms.kitchen/subscribe?method=polling&sid=room', { method: 'POST' });
    t.equal(res.status, 200);
    let got = await pollWhile(iob, 'room', () => write(`${SPEAKER}.volume`, 30));
    t.match(got, [{ device: SPEAKER, role: 'VOLUME', id: `${SPEAKER}.volume`, state: { val: 30 } }]);

    const { objects } = host.storage;
    await objects.setObjectAsync('enum.rooms.kitchen', enumObject('enum.rooms.kitchen', [`${BLIND}.LEVEL`, SPEAKER, THERMOSTAT]));
    let val = 20;
    let joined: Event | undefined;
    for (let tries = 0; tries < 20 && !joined; tries++) {
        got = await pollWhile(iob, 'room', () => write(`${THERMOSTAT}.ACTUAL_TEMPERATURE`, ++val));
        joined = got.find(e => e.device === THERMOSTAT);
    }
    t.match(joined, { device: THERMOSTAT, role: 'ACTUAL', id: `${THERMOSTAT}.ACTUAL_TEMPERATURE`, state: { val } }, 'without subscribing again');

    await objects.setObjectAsync('enum.rooms.kitchen', enumObject('enum.rooms.kitchen', [`${BLIND}.LEVEL`, SPEAKER]));
    await sleep(1000);
    got = await pollWhile(iob, 'room', async () => {
        await write(`${THERMOSTAT}.ACTUAL_TEMPERATURE`, 30);
        await write(`${BLIND}.LEVEL`, 10);
    });
    t.same(got.map(e => e.device), [BLIND], 'the thermostat left the room: only the blind');
    t.match(got[0], { role: 'SET', id: `${BLIND}.LEVEL` });
});

t.test('a state that joins a device is delivered under its role', async t => {
    await iob.request(`/v1/devices/${LIGHT}/subscribe?method=polling&sid=joins`, { method: 'POST' });
    const { objects } = host.storage;
    const id = `${LIGHT}.level`;
    await objects.setObjectAsync(id, {
        _id: id,
        type: 'state',
        common: { name: 'Brightness', role: 'level.dimmer', type: 'number', read: true, write: true, min: 0, max: 100 },
        native: {},
    } as ioBroker.Object);
    let found: Event | undefined;
    for (let tries = 0; tries < 20 && !found; tries++) {
        found = (await pollWhile(iob, 'joins', () => write(id, tries))).find(e => e.id === id);
    }
    t.match(found, { device: LIGHT, id }, 'the new state arrives without subscribing again');
    t.type(found?.role, 'string');
    await objects.delObjectAsync(id);
});

t.test('URL hook: validated, then each change of the device with device and role; unsubscribed', async t => {
    hooks.received = [];
    let res = await iob.request(`/v1/devices/${LIGHT}/subscribe`, { method: 'POST', body: { url: hooks.url } });
    t.equal(res.status, 200);
    t.same(JSON.parse(hooks.received[0].body), { test: true });
    await sleep(100);
    await write(`${LIGHT}.on`, false);
    const end = Date.now() + 5000;
    while (hooks.received.length < 2 && Date.now() < end) {
        await sleep(20);
    }
    t.match(JSON.parse(hooks.received[1]?.body ?? '{}'), { device: LIGHT, role: 'SET', id: `${LIGHT}.on`, state: { val: false } });
    res = await iob.request(`/v1/devices/${LIGHT}/subscribe`, { method: 'DELETE', body: { url: hooks.url } });
    t.same(res.json, { result: 'OK' });
    hooks.received = [];
    await write(`${LIGHT}.on`, true);
    await sleep(300);
    t.same(hooks.received, [], 'nothing after the unsubscribe');
});

async function nextData(sse: SseClient): Promise<Event> {
    return JSON.parse((await sse.nextEvent(5000)).data ?? 'null') as Event;
}

t.test('event stream: devices and functions, with device and role', async t => {
    const sse = await openSse(`${iob.baseUrl}/v1/events?devices=${DIMMER},enum.functions.shutter`);
    t.equal(sse.status, 200);
    await write(`${DIMMER}.LEVEL`, 12);
    await write(`${BLIND}.LEVEL`, 34);
    t.match(await nextData(sse), { device: DIMMER, role: 'SET', id: `${DIMMER}.LEVEL`, state: { val: 12 } });
    t.match(await nextData(sse), { device: BLIND, role: 'SET', id: `${BLIND}.LEVEL`, state: { val: 34 } });
    sse.close();
});

const viewer = basic('viewer', 'secret');

t.test('a limited user gets only the changes of states it may read, on every channel', async t => {
    let res = await authed.request(`/v1/devices/${DIMMER}/subscribe?method=polling&sid=lim`, { method: 'POST', headers: viewer });
    t.equal(res.status, 200);
    const got = await pollWhile(
        authed,
        'lim',
        async () => {
            await write(`${DIMMER}.WORKING`, true);
            await write(`${DIMMER}.LEVEL`, 60);
        },
        viewer,
    );
    t.same(got.map(e => e.id), [`${DIMMER}.LEVEL`], 'not WORKING, which it may not read');

    const sse = await openSse(`${authed.baseUrl}/v1/events?devices=${DIMMER}`, viewer);
    t.equal(sse.status, 200);
    await write(`${DIMMER}.WORKING`, false);
    await write(`${DIMMER}.LEVEL`, 61);
    t.match(await nextData(sse), { device: DIMMER, id: `${DIMMER}.LEVEL`, state: { val: 61 } }, 'the stream skips WORKING too');
    sse.close();

    res = await authed.request(`/v1/devices/${LOCK}/subscribe?method=polling&sid=lim`, { method: 'POST', headers: viewer });
    t.equal(res.status, 404, 'a device none of whose states it may read is not there');
    t.match(res.json, { error: 'Device not found' });
    res = await authed.request(`/v1/events?devices=${LOCK}`, { headers: viewer });
    t.equal(res.status, 404);

    res = await authed.request(`/v1/devices/${DIMMER}/subscribe?method=polling&sid=x`, { method: 'POST', headers: basic('blind', 'secret') });
    t.equal(res.status, 403, 'no state read right');
    t.same(res.json, { error: 'permissionError' });
    res = await authed.request(`/v1/devices/${DIMMER}/subscribe?method=polling&sid=x`, { method: 'POST' });
    t.equal(res.status, 401);
});

t.test('unknown devices, rooms and functions are 404 as JSON; a missing target is 422', async t => {
    const cases = [
        ['/v1/devices/no.such.device/subscribe?method=polling&sid=e', 'Device not found'],
        ['/v1/rooms/enum.rooms.nowhere/subscribe?method=polling&sid=e', 'Room not found'],
        [`/v1/rooms/${DIMMER}/subscribe?method=polling&sid=e`, 'Room not found'],
        ['/v1/functions/enum.functions.nothing/subscribe?method=polling&sid=e', 'Function not found'],
    ];
    for (const [path, error] of cases) {
        const res = await iob.request(path, { method: 'POST' });
        t.equal(res.status, 404, path);
        t.match(res.json, { error }, path);
    }
    let res = await iob.request('/v1/events?devices=no.such.device');
    t.equal(res.status, 404);
    t.match(res.json, { error: 'Device not found' });
    res = await iob.request(`/v1/devices/${DIMMER}/subscribe`, { method: 'POST', body: {} });
    t.equal(res.status, 422);
    t.match(res.json, { error: 'url not provided' });
    res = await iob.request('/v1/polling?sid=e&timeout=100');
    t.not(res.status, 500, 'no session was made by the refused subscribes');
});

t.test('a room of more states than one subscription follows is a 422, and it holds no listener', async t => {
    const { objects } = host.storage;
    const ids = Array.from({ length: 1001 }, (_, i) => `0_userdata.0.many.s${String(i).padStart(4, '0')}`);
    for (const id of ids) {
        await objects.setObjectAsync(id, { _id: id, type: 'state', common: { name: id, role: 'switch', type: 'boolean', read: true, write: true }, native: {} } as ioBroker.Object);
    }
    await objects.setObjectAsync('enum.functions.many', enumObject('enum.functions.many', ids));
    let res = await iob.request('/v1/functions/enum.functions.many/subscribe?method=polling&sid=many', { method: 'POST' });
    for (let i = 0; i < 20 && res.status === 404; i++) {
        // the catalog sees the new enum after its settle time
        await sleep(200);
        res = await iob.request('/v1/functions/enum.functions.many/subscribe?method=polling&sid=many', { method: 'POST' });
    }
    t.equal(res.status, 422, res.text.slice(0, 300));
    t.match(res.json?.error, /holds 1001 states: at most 1000 per subscription/);
    await objects.delObjectAsync('enum.functions.many');
    for (const id of ids) {
        await objects.delObjectAsync(id);
    }
});
