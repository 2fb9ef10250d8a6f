import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { PROJECT_ROOT } from '../../scripts/embedded-storage';
import { startInProcess, type InProcessHost } from '../support/in-process';
import { appFixture, type AppFixture } from '../support/in-process-fixture';
import { basic } from '../support/raw-request';
import { until } from '../support/until';
import { DEVICE_FIXTURES } from '../support/device-fixtures';

let host: InProcessHost;
let iob: AppFixture;
let authed: AppFixture;

const DIMMER = 'hm-rpc.0.OEQ0000001.1';
const THERMOSTAT = 'hm-rpc.0.OEQ0000002.4';
const BLIND = 'hm-rpc.0.OEQ0000003.1';
const VACUUM = 'mihome-vacuum.0.control';
const LIGHT = 'hue.0.Hallway_ceiling';
const SPEAKER = 'sonos.0.root.192_168_1_50';
const LOCK = 'nuki-extended.0.smartlocks.front_door';

const enumObject = (id: string, name: ioBroker.StringOrTranslated, members: string[]): ioBroker.Object =>
    ({ _id: id, type: 'enum', common: { name, members }, native: {} }) as ioBroker.Object;

/** Readable and writable by its owner (the admin) only. */
const PRIVATE_ACL = { owner: 'system.user.admin', ownerGroup: 'system.group.administrator', object: 0x664, state: 0x600 };
/** Everyone reads, only the owner writes. */
const READ_ONLY_ACL = { owner: 'system.user.admin', ownerGroup: 'system.group.administrator', object: 0x664, state: 0x644 };

async function seed(): Promise<void> {
    const { objects, states } = host.storage;
    for (const fixture of DEVICE_FIXTURES) {
        for (const obj of fixture.objects) {
            await objects.setObjectAsync(obj._id, obj);
        }
        for (const [id, val] of Object.entries(fixture.values)) {
            await states.setStateAsync(id, { val, ack: true, from: 'system.adapter.test.0', ts: Date.now(), lc: Date.now(), q: 0 });
        }
    }
    const enums = [
        // the hm-rpc device (a parent of the dimmer's channel) and a hue channel
        enumObject('enum.rooms.living_room', { en: 'Living room', de: 'Wohnzimmer', ru: 'Гостиная' }, ['hm-rpc.0.OEQ0000001', LIGHT]),
        // one state of the blind, the speaker's channel
        enumObject('enum.rooms.kitchen', { en: 'Kitchen', de: 'Küche' }, [`${BLIND}.LEVEL`, SPEAKER]),
        enumObject('enum.functions.light', { en: 'Light', de: 'Licht', ru: 'Свет' }, [LIGHT, DIMMER]),
        enumObject('enum.functions.shutter', { en: 'Blinds', de: 'Rollläden' }, [BLIND]),
    ];
    for (const obj of enums) {
        await objects.setObjectAsync(obj._id, obj);
    }
    // the limited user may read the lock's state object but not its value, and may not write the thermostat
    const lockState = (await objects.getObjectAsync(`${LOCK}.locked`)) as ioBroker.Object;
    await objects.setObjectAsync(lockState._id, { ...lockState, acl: PRIVATE_ACL } as ioBroker.Object);
    const setpoint = (await objects.getObjectAsync(`${THERMOSTAT}.SET_TEMPERATURE`)) as ioBroker.Object;
    await objects.setObjectAsync(setpoint._id, { ...setpoint, acl: READ_ONLY_ACL } as ioBroker.Object);
    const hidden = (await objects.getObjectAsync(`${DIMMER}.WORKING`)) as ioBroker.Object;
    await objects.setObjectAsync(hidden._id, { ...hidden, acl: PRIVATE_ACL } as ioBroker.Object);
}

t.before(async () => {
    host = await startInProcess();
    await seed();
    iob = await appFixture(host, {}, { socket: true });
    authed = await appFixture(host, { auth: true }, { socket: true });
    await authed.createUser('viewer', {
        object: { read: true, list: true },
        state: { read: true, list: true, write: true },
    });
});
t.teardown(async () => {
    await iob?.close();
    await authed?.close();
    await host?.stop();
});

t.test('every fixture device is listed with its type, states by role, ids and values', async t => {
    const res = await iob.request('/v1/devices');
    t.equal(res.status, 200);
    t.ok(DEVICE_FIXTURES.length >= 15, 'the fifteen most common types at least');
    for (const fixture of DEVICE_FIXTURES) {
        const device = res.json[fixture.id];
        t.ok(device, fixture.id);
        t.equal(device?.type, fixture.type, `${fixture.id} type`);
        for (const [role, part] of Object.entries(fixture.roles)) {
            const id = `${fixture.id}.${part}`;
            t.equal(device?.states[role]?.id, id, `${fixture.id} ${role}`);
            t.same(device?.states[role]?.val, fixture.values[id], `${fixture.id} ${role} value`);
        }
    }
    const dimmer = res.json[DIMMER];
    t.same(dimmer.states.UNREACH.id, 'hm-rpc.0.OEQ0000001.0.UNREACH', 'the indicator of the maintenance channel belongs to the device');
    t.match(dimmer.states.SET, { role: 'level.dimmer', type: 'number', min: 0, max: 100, unit: '%', ack: true });
    t.same(dimmer.rooms, [{ id: 'enum.rooms.living_room', name: 'Living room' }], 'a room of its parent device');
    t.same(dimmer.functions, [{ id: 'enum.functions.light', name: 'Light' }]);
    t.same(res.json[BLIND].rooms.map((r: { id: string }) => r.id), ['enum.rooms.kitchen'], 'a room of one of its states');
});

t.test('one device; 404 as JSON for an id that is no device', async t => {
    const res = await iob.request(`/v1/devices/${encodeURIComponent(THERMOSTAT)}`);
    t.equal(res.status, 200);
    t.match(res.json, { id: THERMOSTAT, name: 'Bath radiator', type: 'thermostat', states: { SET: { id: `${THERMOSTAT}.SET_TEMPERATURE`, val: 21 } } });
    for (const id of ['nothing.0.here', `${THERMOSTAT}.SET_TEMPERATURE`, 'hm-rpc.0.OEQ0000001.0']) {
        const missing = await iob.request(`/v1/devices/${encodeURIComponent(id)}`);
        t.equal(missing.status, 404, id);
        t.same(missing.json, { error: 'Device not found', id });
    }
});

t.test('names in the asked language, the system language by default', async t => {
    t.equal((await iob.request(`/v1/devices/${LIGHT}?lang=de`)).json.name, 'Flurdecke');
    t.equal((await iob.request(`/v1/devices/${LIGHT}`)).json.name, 'Hallway ceiling');
    const rooms = (await iob.request(`/v1/devices/${DIMMER}?lang=ru`)).json.rooms;
    t.same(rooms, [{ id: 'enum.rooms.living_room', name: 'Гостиная' }]);
    t.equal((await iob.request(`/v1/devices/${THERMOSTAT}?lang=de`)).json.name, 'Bath radiator', 'a plain name in any language');
});

const idsOf = (json: Record<string, unknown>): string[] => Object.keys(json).sort();

t.test('room, function and type filters, by enum id or by a name in any language', async t => {
    const living = [DIMMER, LIGHT].sort();
    for (const room of ['enum.rooms.living_room', 'Living room', 'wohnzimmer', 'Гостиная', 'living_room']) {
        const res = await iob.request(`/v1/devices?room=${encodeURIComponent(room)}`);
        t.equal(res.status, 200, room);
        t.same(idsOf(res.json), living, room);
    }
    t.same(idsOf((await iob.request('/v1/devices?room=K%C3%BCche')).json), [BLIND, SPEAKER].sort());
    t.same(idsOf((await iob.request('/v1/devices?function=Licht')).json), living);
    t.same(idsOf((await iob.request('/v1/devices?function=Licht&type=dimmer')).json), [DIMMER]);
    t.same(idsOf((await iob.request('/v1/devices?type=vacuumCleaner')).json), [VACUUM]);
    t.same(idsOf((await iob.request('/v1/devices?room=Kitchen&function=Light')).json), [], 'both filters apply');
});

t.test('bad queries are 422 with the parameter named', async t => {
    for (const [query, param] of [
        ['room=Attic', 'room'],
        ['function=enum.functions.none', 'function'],
        ['type=toaster', 'type'],
        ['type=info', 'type'],
        ['limit=0', 'limit'],
        ['limit=abc', 'limit'],
        ['fields=colour', 'fields'],
        ['cursor=xyz&limit=2', 'cursor'],
    ]) {
        const res = await iob.request(`/v1/devices?${query}`);
        t.equal(res.status, 422, query);
        t.match(res.text, param, `${query} names ${param}`);
        t.type(res.json?.error, 'string');
    }
});

t.test('pages walk every device once; fields project', async t => {
    const all = idsOf((await iob.request('/v1/devices')).json);
    const seen: string[] = [];
    let next: string | undefined = '/v1/devices?limit=5';
    while (next) {
        const res = await iob.request(next);
        t.equal(res.status, 200);
        t.ok(Object.keys(res.json).length <= 5);
        seen.push(...Object.keys(res.json));
        next = /<([^>]+)>; rel="next"/.exec(res.headers.link ?? '')?.[1];
    }
    t.same(seen, all, 'in id order, none twice, none left out');
    const projected = await iob.request(`/v1/devices?type=thermostat&fields=name,states.SET.val`);
    t.same(projected.json, { [THERMOSTAT]: { name: 'Bath radiator', states: { SET: { val: 21 } } } });
});

t.test('rooms and functions with the devices in each', async t => {
    const rooms = await iob.request('/v1/rooms?lang=de');
    t.equal(rooms.status, 200);
    t.equal(rooms.json['enum.rooms.kitchen'].name, 'Küche');
    t.same(rooms.json['enum.rooms.kitchen'].devices.map((d: { id: string }) => d.id).sort(), [BLIND, SPEAKER].sort());
    t.match(rooms.json['enum.rooms.living_room'].devices, [{ id: DIMMER, name: 'Living room lamp:1', type: 'dimmer' }, { id: LIGHT, name: 'Flurdecke', type: 'light' }]);
    const functions = await iob.request('/v1/functions');
    t.same(functions.json['enum.functions.shutter'], { id: 'enum.functions.shutter', name: 'Blinds', devices: [{ id: BLIND, name: 'Kitchen shutter:1', type: 'blind' }] });
});

async function stateOf(id: string): Promise<ioBroker.State | null> {
    return (await host.storage.states.getStateAsync(id)) as ioBroker.State | null;
}

t.test('PATCH writes each role to its state with its type and ack=false', async t => {
    const res = await iob.request(`/v1/devices/${THERMOSTAT}`, { method: 'PATCH', body: { SET: 21.5 } });
    t.equal(res.status, 200);
    t.same(res.json, { id: THERMOSTAT, results: { SET: { id: `${THERMOSTAT}.SET_TEMPERATURE`, status: 200, val: 21.5 } } });
    t.match(await stateOf(`${THERMOSTAT}.SET_TEMPERATURE`), { val: 21.5, ack: false });
    const text = await iob.request(`/v1/devices/${THERMOSTAT}`, { method: 'PATCH', body: { SET: '22' } });
    t.equal(text.status, 200, 'text for a number state is converted');
    t.match(await stateOf(`${THERMOSTAT}.SET_TEMPERATURE`), { val: 22, ack: false });
    const two = await iob.request(`/v1/devices/${SPEAKER}`, { method: 'PATCH', body: { STATE: true, VOLUME: 35 } });
    t.equal(two.status, 200);
    t.match(await stateOf(`${SPEAKER}.state_simple`), { val: true, ack: false });
    t.match(await stateOf(`${SPEAKER}.volume`), { val: 35, ack: false });
    const mode = await iob.request(`/v1/devices/${VACUUM}`, { method: 'PATCH', body: { MODE: 1 } });
    t.equal(mode.status, 200, 'a value of common.states');
});

t.test('PATCH refuses a role the device lacks or a value its state refuses, and writes nothing', async t => {
    const before = await stateOf(`${SPEAKER}.volume`);
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
        [SPEAKER, { VOLUME: 10, TEMPERATURE: 20 }, /no role TEMPERATURE/],
        [SPEAKER, { VOLUME: 101 }, /at most 100/],
        [SPEAKER, { VOLUME: -1 }, /at least 0/],
        [SPEAKER, { VOLUME: 10, STATE: 'loud' }, /STATE: Value "loud" is not a boolean/],
        [SPEAKER, { VOLUME: 10, STATE: 1 }, /STATE: must be a boolean/],
        [SPEAKER, { VOLUME: null }, /must be a number/],
        [VACUUM, { MODE: 7 }, /one of 0, 1, 2/],
        [DIMMER, { SET: 30, WORKING: true }, /read-only/],
        [SPEAKER, {}, /No role/],
    ];
    for (const [id, body, problem] of cases) {
        const res = await iob.request(`/v1/devices/${id}`, { method: 'PATCH', body });
        t.equal(res.status, 422, JSON.stringify(body));
        t.match(res.json?.error, problem, JSON.stringify(body));
    }
    t.same(await stateOf(`${SPEAKER}.volume`), before, 'the valid role of a refused body was not written');
    t.match(await stateOf(`${DIMMER}.LEVEL`), { val: 40, ack: true }, 'nor the dimmer level');
    const list = await iob.request(`/v1/devices/${SPEAKER}`, { method: 'PATCH', body: [1] });
    t.equal(list.status, 422, 'a body that is no object');
    const missing = await iob.request('/v1/devices/nothing.0.here', { method: 'PATCH', body: { SET: 1 } });
    t.equal(missing.status, 404);
    const broken = await iob.request(`/v1/devices/${SPEAKER}`, { method: 'PATCH', raw: '{"VOLUME": 1', headers: { 'Content-Type': 'application/json' } });
    t.equal(broken.status, 400, 'a body that is no JSON');
    t.type(broken.json?.error, 'string');
    t.same(await stateOf(`${SPEAKER}.volume`), before, 'still nothing written');
});

const viewer = { headers: basic('viewer', 'secret') };

t.test('a limited user sees only the states it may read, and no device without one', async t => {
    const res = await authed.request('/v1/devices', viewer);
    t.equal(res.status, 200);
    t.notOk(res.json[LOCK], 'the lock, whose one state it may not read, is not listed');
    t.ok(res.json[DIMMER], 'the dimmer is');
    t.notOk(res.json[DIMMER].states.WORKING, 'without the state it may not read');
    t.ok(res.json[DIMMER].states.SET);
    t.equal((await authed.request(`/v1/devices/${LOCK}`, viewer)).status, 404, 'nor found alone');
    const admin = await authed.request('/v1/devices', { headers: basic('admin', 'iobroker') });
    t.ok(admin.json[LOCK]?.states.SET, 'the admin sees it');
    t.equal((await authed.request('/v1/devices')).status, 401, 'no credentials');
});

t.test('a limited user writes only where it may: 403 for all refused, 207 for some', async t => {
    const refused = await authed.request(`/v1/devices/${THERMOSTAT}`, { ...viewer, method: 'PATCH', body: { SET: 19 } });
    t.equal(refused.status, 403);
    t.match(refused.json, { error: 'permissionError', id: THERMOSTAT, results: { SET: { status: 403 } } });
    t.match(await stateOf(`${THERMOSTAT}.SET_TEMPERATURE`), { val: 22 }, 'not written');
    // the setpoint is read-only for the viewer, the actual temperature is writable (write:false only in common)
    const speaker = await authed.request(`/v1/devices/${SPEAKER}`, { ...viewer, method: 'PATCH', body: { VOLUME: 12 } });
    t.equal(speaker.status, 200);
    const setpoint = (await host.storage.objects.getObjectAsync(`${SPEAKER}.volume`)) as ioBroker.Object;
    await host.storage.objects.setObjectAsync(setpoint._id, { ...setpoint, acl: READ_ONLY_ACL } as ioBroker.Object);
    const mixed = await authed.request(`/v1/devices/${SPEAKER}`, { ...viewer, method: 'PATCH', body: { STATE: false, VOLUME: 13 } });
    t.equal(mixed.status, 207);
    t.match(mixed.json.results, { STATE: { status: 200 }, VOLUME: { status: 403 } });
    t.match(await stateOf(`${SPEAKER}.state_simple`), { val: false });
    t.match(await stateOf(`${SPEAKER}.volume`), { val: 12 });
});

t.test('new devices, removed devices and enum changes show without a restart', async t => {
    const id = 'zigbee.0.00158d0009999999';
    const { objects } = host.storage;
    await objects.setObjectAsync(id, { _id: id, type: 'device', common: { name: 'New plug' }, native: {} } as ioBroker.Object);
    await objects.setObjectAsync(`${id}.state`, {
        _id: `${id}.state`,
        type: 'state',
        common: { name: 'Switch', role: 'switch', type: 'boolean', read: true, write: true },
        native: {},
    } as ioBroker.Object);
    t.ok(await until(async () => (await iob.request(`/v1/devices/${id}`)).status === 200), 'a new device appears');
    t.equal((await iob.request(`/v1/devices/${id}`)).json.type, 'socket');

    const kitchen = (await objects.getObjectAsync('enum.rooms.kitchen')) as ioBroker.Object;
    await objects.setObjectAsync(kitchen._id, {
        ...kitchen,
        common: { ...kitchen.common, name: { en: 'Kitchen', de: 'Küche', fr: 'Cuisine' }, members: [...(kitchen.common as { members: string[] }).members, id] },
    } as ioBroker.Object);
    t.ok(
        await until(async () => Object.keys((await iob.request('/v1/devices?room=cuisine')).json ?? {}).includes(id)),
        'a new member and a new translation of a room',
    );
    await objects.delObjectAsync(`${id}.state`);
    await objects.delObjectAsync(id);
    t.ok(await until(async () => (await iob.request(`/v1/devices/${id}`)).status === 404), 'a removed device is gone');

    const config = (await objects.getObjectAsync('system.config')) as ioBroker.Object;
    await objects.setObjectAsync('system.config', { ...config, common: { ...config.common, language: 'de' } } as ioBroker.Object);
    t.ok(await until(async () => (await iob.request(`/v1/devices/${LIGHT}`)).json?.name === 'Flurdecke'), 'the system language');
    await objects.setObjectAsync('system.config', config);
});

t.test('the voice-bridge example of docs/en/devices.md switches and dims a room', async t => {
    const run = (sentence: string) =>
        promisify(execFile)(process.execPath, [join(PROJECT_ROOT, 'examples', 'voice-bridge.js'), '--url', iob.baseUrl, sentence]);
    const off = await run('turn off the lights in the Wohnzimmer');
    const lines = off.stdout.trim().split('\n').map(line => JSON.parse(line));
    t.same(lines.map(line => [line.id, line.status, line.written]).sort(), [
        [DIMMER, 200, { SET: 0 }],
        [LIGHT, 200, { SET: false }],
    ]);
    t.match(await stateOf(`${DIMMER}.LEVEL`), { val: 0, ack: false });
    t.match(await stateOf(`${LIGHT}.on`), { val: false, ack: false });
    const dim = await run('set the light in the living room to 30');
    t.match(dim.stderr, /Hallway ceiling: cannot set/, 'a light without a level is left alone');
    t.match(await stateOf(`${DIMMER}.LEVEL`), { val: 30, ack: false });
    await t.rejects(run('turn on the toaster in the attic'), 'an unknown room fails');
});

t.test('a limited user cannot put a state it may not switch into a room or function another caller acts on', async t => {
    await authed.createUser('maker', {
        object: { read: true, list: true, write: true, create: true },
        state: { read: true, list: true, write: true },
    });
    const maker = { headers: basic('maker', 'secret') };
    // the lock's state is the admin's own (private); the thermostat's setpoint is readable, not writable
    for (const member of [`${LOCK}.locked`, `${THERMOSTAT}.SET_TEMPERATURE`, 'nothing.0.there']) {
        const res = await authed.request('/v1/object/enum.rooms.fake', {
            ...maker,
            method: 'PUT',
            body: { type: 'enum', common: { name: 'Living room', members: [member] }, native: {} },
        });
        t.equal(res.status, 403, `${member} refused as a member`);
        t.equal(res.json?.id, 'enum.rooms.fake', 'naming the enum only');
    }
    t.equal(await host.storage.objects.getObjectAsync('enum.rooms.fake'), null, 'no enum was made');
    const own = await authed.request('/v1/object/enum.functions.makers', {
        ...maker,
        method: 'PUT',
        body: { type: 'enum', common: { name: 'Makers', members: [`${SPEAKER}.state_simple`] }, native: {} },
    });
    t.equal(own.status, 200, 'a state it may switch is a member it may add');
    await host.storage.objects.delObjectAsync('enum.functions.makers');
});

t.test('a room name two rooms share is a 422 naming both, not the devices of both', async t => {
    await host.storage.objects.setObjectAsync('enum.rooms.living_room_2', enumObject('enum.rooms.living_room_2', { en: 'Living room' }, [SPEAKER]));
    t.ok(await until(async () => (await iob.request('/v1/rooms')).json?.['enum.rooms.living_room_2'] !== undefined), 'the second room is seen');
    const res = await iob.request('/v1/devices?room=living%20room');
    t.equal(res.status, 422);
    t.match(res.json?.error, /enum\.rooms\.living_room, enum\.rooms\.living_room_2/);
    const byId = await iob.request('/v1/devices?room=enum.rooms.living_room');
    t.equal(byId.status, 200);
    t.ok(byId.json[LIGHT] && !byId.json[SPEAKER], 'the enum id names one room');
    await host.storage.objects.delObjectAsync('enum.rooms.living_room_2');
});

t.test('a token that may not read the device object or the room members sees neither name nor room', async t => {
    const admin = { headers: basic('admin', 'iobroker') };
    const created = await authed.request('/v1/tokens', { ...admin, method: 'POST', body: { name: 'dimmer only', scope: { read: [`${DIMMER}.*`, 'enum.*'] } } });
    t.equal(created.status, 201);
    const token = { headers: { Authorization: `Bearer ${created.json.token}` } };
    t.equal((await authed.request(`/v1/object/${DIMMER}`, token)).status, 403, 'the channel object is out of its scope');
    const res = await authed.request(`/v1/devices/${DIMMER}`, token);
    t.equal(res.status, 200);
    t.equal(res.json.name, '1', 'named by its id, not by the object it may not read');
    t.same(res.json.rooms, [], 'the room holds the device (its parent), a member it may not read');
    t.same(res.json.functions, [], 'nor the function naming the channel object');
    t.ok(res.json.states.SET, 'its states are there');
    const rooms = await authed.request('/v1/rooms', token);
    t.same(rooms.json['enum.rooms.living_room']?.devices, [], 'nor is it listed in the room');
});

t.test('PATCH: inherited names are no roles, a body of more roles than the device has or over 64 KB writes nothing', async t => {
    const before = await stateOf(`${LIGHT}.on`);
    for (const role of ['constructor', 'toString', '__proto__']) {
        const res = await iob.request(`/v1/devices/${LIGHT}`, { method: 'PATCH', raw: `{"${role}": 1, "SET": false}`, headers: { 'Content-Type': 'application/json' } });
        t.equal(res.status, 422, role);
        t.match(res.json?.error, /Nothing written/, role);
    }
    const many = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`R${i}`, 1]));
    const res = await iob.request(`/v1/devices/${LIGHT}`, { method: 'PATCH', body: many });
    t.equal(res.status, 422);
    t.match(res.json?.error, /names 200 roles; the device has/);
    t.ok(res.text.length < 2000, `a short answer (${res.text.length} bytes)`);
    const big = await iob.request(`/v1/devices/${LIGHT}`, { method: 'PATCH', body: { SET: false, pad: 'x'.repeat(70 * 1024) } });
    t.equal(big.status, 413);
    t.same(await stateOf(`${LIGHT}.on`), before, 'nothing written');
});

t.test('a parent made a channel takes over no device below it; each channel of a device is one device', async t => {
    const { objects } = host.storage;
    const before = (await iob.request('/v1/devices')).json;
    await objects.setObjectAsync('hm-rpc.0', { _id: 'hm-rpc.0', type: 'channel', common: { name: 'evil' }, native: {} } as ioBroker.Object);
    // two switching channels sharing channel 0's indicators, as a Homematic two-channel actuator has them
    const serial = 'hm-rpc.0.OEQ0000009';
    const made: Array<[string, string, Record<string, unknown>]> = [
        [serial, 'device', { name: 'Double switch' }],
        [`${serial}.0`, 'channel', { name: 'Double switch:0' }],
        [`${serial}.0.UNREACH`, 'state', { name: 'UNREACH', role: 'indicator.maintenance.unreach', type: 'boolean', read: true, write: false }],
        [`${serial}.1`, 'channel', { name: 'Double switch:1' }],
        [`${serial}.1.STATE`, 'state', { name: 'STATE', role: 'switch', type: 'boolean', read: true, write: true }],
        [`${serial}.2`, 'channel', { name: 'Double switch:2' }],
        [`${serial}.2.STATE`, 'state', { name: 'STATE', role: 'switch', type: 'boolean', read: true, write: true }],
    ];
    for (const [id, type, common] of made) {
        await objects.setObjectAsync(id, { _id: id, type, common, native: {} } as unknown as ioBroker.Object);
    }
    let after: Record<string, { states: Record<string, { id: string }> }> = {};
    t.ok(await until(async () => {
        after = (await iob.request('/v1/devices')).json;
        return !!after[`${serial}.2`];
    }), 'the second channel is found');
    t.ok(after[`${serial}.1`], 'and the first');
    t.notOk(after['hm-rpc.0'], 'the parent made a channel is no device');
    for (const id of [DIMMER, THERMOSTAT, BLIND]) {
        t.same(after[id]?.states, before[id]?.states, `${id} keeps its states`);
    }
    await objects.delObjectAsync('hm-rpc.0');
    for (const [id] of made.reverse()) {
        await objects.delObjectAsync(id);
    }
});
