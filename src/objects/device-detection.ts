import ChannelDetector, { Types, type DetectOptions, type PatternControl } from '@iobroker/type-detector';

/*
 * Devices as @iobroker/type-detector finds them in the objects, with the rooms and functions they
 * belong to. Pure: the objects go in, the devices come out; who may see what is decided per request
 * (src/objects/device-view.ts).
 */

/** One detected device: where it was found, its type and its states by type-detector's state names. */
export interface DetectedDevice {
    id: string;
    /** The channel, device or state the detector was started at; its name is the device's name. */
    root: string;
    type: string;
    /** Type-detector's state name (SET, ACTUAL, ON, ...) → state id; the first where a name repeats. */
    states: Record<string, string>;
    /** Ids of the enum.rooms.* / enum.functions.* that hold the device, one of its states or a parent. */
    rooms: string[];
    functions: string[];
}

export interface EnumEntry {
    id: string;
    obj: ioBroker.Object;
}

export interface DeviceSnapshot {
    devices: DetectedDevice[];
    byId: Map<string, DetectedDevice>;
    rooms: EnumEntry[];
    functions: EnumEntry[];
    /** The objects the detection read (states, channels, devices, folders, enums), by id. */
    objects: Record<string, ioBroker.Object>;
    /** system.config's language, the default of `lang`. */
    language: string;
}

/** Every device type except the lone indicators (`info`: only UNREACH, LOWBAT, ...), which are parts of others. */
export const DEVICE_TYPES: string[] = Object.values(Types).filter(type => type !== Types.info);

/** Ids left out of detection: js-controller's own objects. */
const SKIPPED = /^(system|enum|script|_design)\./;

function parentOf(id: string): string {
    return id.slice(0, Math.max(0, id.lastIndexOf('.')));
}

/**
 * Where the detector starts: every channel, every device without channels of its own, and the lone
 * states a user made (members of an enum, or below alias. / 0_userdata.) that sit in no channel or device.
 */
function detectionRoots(objects: Record<string, ioBroker.Object>, keys: string[], members: Set<string>): string[] {
    const withChannels = new Set<string>();
    for (const id of keys) {
        if (objects[id].type === 'channel') {
            withChannels.add(parentOf(id));
        }
    }
    const inDevice = (id: string): boolean => {
        for (let at = parentOf(id); at; at = parentOf(at)) {
            const type = objects[at]?.type;
            if (type === 'channel' || type === 'device') {
                return true;
            }
        }
        return false;
    };
    const roots: string[] = [];
    for (const id of keys) {
        const type = objects[id].type;
        if (SKIPPED.test(id)) {
            continue;
        }
        if (
            type === 'channel' ||
            (type === 'device' && !withChannels.has(id)) ||
            (type === 'state' && (members.has(id) || /^(alias|0_userdata)\./.test(id)) && !inDevice(id))
        ) {
            roots.push(id);
        }
    }
    return roots;
}

function enumsOf(objects: Record<string, ioBroker.Object>, keys: string[], category: string): EnumEntry[] {
    const prefix = `enum.${category}.`;
    return keys
        .filter(id => id.startsWith(prefix) && objects[id].type === 'enum')
        .map(id => ({ id, obj: objects[id] }));
}

function membersOf(entry: EnumEntry): string[] {
    const members = (entry.obj.common as { members?: unknown }).members;
    return Array.isArray(members) ? members.filter((m): m is string => typeof m === 'string') : [];
}

/** The enums holding the device: its root, a parent of the root, or one of its states. */
function holding(enums: EnumEntry[], device: Omit<DetectedDevice, 'rooms' | 'functions'>): string[] {
    const ids = new Set(Object.values(device.states));
    for (let at = device.root; at; at = parentOf(at)) {
        ids.add(at);
    }
    return enums.filter(entry => membersOf(entry).some(member => ids.has(member))).map(entry => entry.id);
}

/** The nearest channel or device above `id` (folders skipped), or '' for none. */
function holderOf(objects: Record<string, ioBroker.Object>, id: string): string {
    for (let at = parentOf(id); at; at = parentOf(at)) {
        const type = objects[at]?.type;
        if (type === 'channel' || type === 'device') {
            return at;
        }
    }
    return '';
}

/**
 * The controls of one root that use no state an earlier device already has, and whose states (but the
 * indicators: UNREACH, LOWBAT of a device's channel 0 serve each of its channels) are the root's own: a
 * parent made a channel, by a user who may create objects, must not take over the devices below it.
 */
function controlsAt(detector: ChannelDetector, options: DetectOptions, claimed: Set<string>): PatternControl[] {
    const found = detector.detect(options) ?? [];
    const kept: PatternControl[] = [];
    for (const control of found) {
        const ids = control.states.filter(state => state.id && !state.indicator).map(state => state.id);
        const own = ids.every(id => id === options.id || holderOf(options.objects, id) === options.id);
        if (ids.length && own && !ids.some(id => claimed.has(id))) {
            ids.forEach(id => claimed.add(id));
            kept.push(control);
        }
    }
    return kept;
}

/** The device of one control: named by its root, or (a further device in the same channel) by its main state. */
function deviceOf(control: PatternControl, root: string, first: boolean): Omit<DetectedDevice, 'rooms' | 'functions'> {
    const states: Record<string, string> = {};
    for (const state of control.states) {
        if (state.id && !(state.name in states)) {
            states[state.name] = state.id;
        }
    }
    const main =
        control.states.find(state => state.id && (state.required || state.requiredOneOf)) ??
        control.states.find(s => s.id);
    return { id: first ? root : (main?.id ?? root), root, type: control.type, states };
}

/** Every device in `objects` (id → object of the states, channels, devices, folders and enums). */
export function detectDevices(objects: Record<string, ioBroker.Object>, language: string): DeviceSnapshot {
    const keys = Object.keys(objects).sort();
    const rooms = enumsOf(objects, keys, 'rooms');
    const functions = enumsOf(objects, keys, 'functions');
    const members = new Set([...rooms, ...functions].flatMap(membersOf));
    // a new detector per run: it caches its results by id forever
    const detector = new ChannelDetector();
    const claimed = new Set<string>();
    const devices: DetectedDevice[] = [];
    const byId = new Map<string, DetectedDevice>();
    for (const root of detectionRoots(objects, keys, members)) {
        const options: DetectOptions = {
            objects,
            id: root,
            _keysOptional: keys,
            _keysOptionalSorted: true,
            _usedIdsOptional: [],
            ignoreIndicators: ['UNREACH_STICKY'],
            excludedTypes: [Types.info],
        };
        controlsAt(detector, options, claimed).forEach((control, index) => {
            const found = deviceOf(control, root, index === 0);
            if (byId.has(found.id)) {
                return;
            }
            const device = { ...found, rooms: holding(rooms, found), functions: holding(functions, found) };
            devices.push(device);
            byId.set(device.id, device);
        });
    }
    return { devices, byId, rooms, functions, objects, language };
}
