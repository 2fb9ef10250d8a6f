/*
 * Device objects as real adapters create them (hm-rpc, zigbee, shelly, sonos, mihome-vacuum, mqtt,
 * nuki and hand-made aliases): the object types, ids, roles, types and ranges those adapters write,
 * each with the device type and state names @iobroker/type-detector is expected to find.
 */

type Common = Partial<ioBroker.StateCommon>;

export interface DeviceFixture {
    /** The device id the API answers: the channel or device the detector starts at. */
    id: string;
    type: string;
    /** State name → the last part of its id. */
    roles: Record<string, string>;
    objects: ioBroker.Object[];
    values: Record<string, ioBroker.StateValue>;
}

const obj = (id: string, type: 'device' | 'channel' | 'folder', name: ioBroker.StringOrTranslated): ioBroker.Object =>
    ({ _id: id, type, common: { name }, native: {} }) as ioBroker.Object;

const state = (id: string, common: Common): ioBroker.Object =>
    ({
        _id: id,
        type: 'state',
        common: { name: id.split('.').pop(), read: true, write: false, type: 'mixed', role: 'state', ...common },
        native: {},
    }) as ioBroker.Object;

/** A channel (optionally in a device) with its states: `states` maps the last id part to [common, value]. */
function fixture(
    id: string,
    type: string,
    kind: 'device' | 'channel',
    name: ioBroker.StringOrTranslated,
    states: Record<string, [Common, ioBroker.StateValue]>,
    roles: Record<string, string>,
    extra: ioBroker.Object[] = [],
): DeviceFixture {
    const values: Record<string, ioBroker.StateValue> = {};
    const objects = [...extra, obj(id, kind, name)];
    for (const [part, [common, val]] of Object.entries(states)) {
        objects.push(state(`${id}.${part}`, common));
        values[`${id}.${part}`] = val;
    }
    return { id, type, roles, objects, values };
}

const num = (role: string, extra: Common = {}): Common => ({ role, type: 'number', ...extra });
const bool = (role: string, extra: Common = {}): Common => ({ role, type: 'boolean', ...extra });
const W = { write: true };

/** hm-rpc: a device with the maintenance channel 0 (UNREACH, LOWBAT) and the working channel 1. */
function homematic(serial: string, name: string, channel1: Record<string, [Common, ioBroker.StateValue]>, type: string, roles: Record<string, string>): DeviceFixture {
    const device = `hm-rpc.0.${serial}`;
    const maintenance = [
        obj(device, 'device', name),
        obj(`${device}.0`, 'channel', `${name}:0`),
        state(`${device}.0.UNREACH`, bool('indicator.maintenance.unreach')),
        state(`${device}.0.LOWBAT`, bool('indicator.maintenance.lowbat')),
    ];
    return fixture(`${device}.1`, type, 'channel', `${name}:1`, channel1, roles, maintenance);
}

export const DEVICE_FIXTURES: DeviceFixture[] = [
    fixture('hue.0.Hallway_ceiling', 'light', 'channel', { en: 'Hallway ceiling', de: 'Flurdecke' }, { on: [bool('switch.light', W), true] }, { SET: 'on' }),
    homematic('OEQ0000001', 'Living room lamp', { LEVEL: [num('level.dimmer', { ...W, min: 0, max: 100, unit: '%' }), 40], WORKING: [bool('indicator.working'), false] }, 'dimmer', { SET: 'LEVEL', WORKING: 'WORKING' }),
    fixture('hm-rpc.0.OEQ0000002.4', 'thermostat', 'channel', 'Bath radiator', {
        SET_TEMPERATURE: [num('level.temperature', { ...W, min: 4.5, max: 30.5, unit: '°C' }), 21],
        ACTUAL_TEMPERATURE: [num('value.temperature', { unit: '°C' }), 20.4],
    }, { SET: 'SET_TEMPERATURE', ACTUAL: 'ACTUAL_TEMPERATURE' }),
    homematic('OEQ0000003', 'Kitchen shutter', { LEVEL: [num('level.blind', { ...W, min: 0, max: 100, unit: '%' }), 100], STOP: [bool('button.stop', { ...W, read: false }), false] }, 'blind', { SET: 'LEVEL', STOP: 'STOP' }),
    fixture('shelly.0.shellyplug-s#C4A1B2#1.Relay0', 'socket', 'channel', 'Coffee machine', { Switch: [bool('switch', W), false] }, { SET: 'Switch' }),
    fixture('nuki-extended.0.smartlocks.front_door', 'lock', 'channel', 'Front door lock', { locked: [bool('switch.lock', W), true] }, { SET: 'locked' }),
    homematic('OEQ0000004', 'Bedroom window', { STATE: [bool('sensor.window'), false] }, 'window', { ACTUAL: 'STATE' }),
    fixture('zigbee.0.00158d0001a2b3c4', 'door', 'device', 'Terrace door', { opened: [bool('sensor.door'), false], battery: [num('value.battery', { unit: '%' }), 87] }, { ACTUAL: 'opened' }),
    fixture('zigbee.0.00158d0001a2b3c5', 'temperature', 'device', 'Outdoor sensor', { temperature: [num('value.temperature', { unit: '°C' }), 7.5] }, { ACTUAL: 'temperature' }),
    homematic('OEQ0000005', 'Hall motion', { MOTION: [bool('sensor.motion'), false] }, 'motion', { ACTUAL: 'MOTION' }),
    fixture('sonos.0.root.192_168_1_50', 'media', 'channel', 'Kitchen speaker', {
        state_simple: [bool('media.state', W), false],
        play: [bool('button.play', { ...W, read: false }), false],
        pause: [bool('button.pause', { ...W, read: false }), false],
        volume: [num('level.volume', { ...W, min: 0, max: 100 }), 20],
    }, { STATE: 'state_simple', PLAY: 'play', PAUSE: 'pause', VOLUME: 'volume' }),
    fixture('mqtt.0.bath.climate', 'humidity', 'channel', 'Bath humidity', { humidity: [num('value.humidity', { unit: '%' }), 61] }, { ACTUAL: 'humidity' }),
    homematic('OEQ0000006', 'Door bell', { PRESS_SHORT: [bool('button', { ...W, read: false }), false] }, 'button', { SET: 'PRESS_SHORT' }),
    fixture('mqtt.0.led_strip', 'rgb', 'channel', 'LED strip', {
        red: [num('level.color.red', { ...W, min: 0, max: 255 }), 255],
        green: [num('level.color.green', { ...W, min: 0, max: 255 }), 128],
        blue: [num('level.color.blue', { ...W, min: 0, max: 255 }), 0],
    }, { RED: 'red', GREEN: 'green', BLUE: 'blue' }),
    fixture('mihome-vacuum.0.control', 'vacuumCleaner', 'channel', 'Robot', {
        power: [bool('switch.power', W), false],
        mode: [num('level.mode.cleanup', { ...W, states: { 0: 'auto', 1: 'spot', 2: 'edge' } }), 0],
    }, { POWER: 'power', MODE: 'mode' }),
    fixture('zigbee.0.00158d0001a2b3c6', 'ct', 'device', 'Desk lamp', {
        colortemp: [num('level.color.temperature', { ...W, min: 2200, max: 6500, unit: 'K' }), 4000],
    }, { TEMPERATURE: 'colortemp' }),
    fixture('zigbee.0.00158d0001a2b3c7', 'floodAlarm', 'device', 'Washing machine leak', { detected: [bool('sensor.alarm.flood'), false] }, { ACTUAL: 'detected' }),
];
