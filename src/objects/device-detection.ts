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
    /** What the next detection reuses (detectDevices' `previous`). */
    memo: DetectionMemo;
}

/** Each root's controls as type-detector found them, and the subtree its detection read beyond the root. */
export interface DetectionMemo {
    roots: Map<string, { controls: PatternControl[]; scope: string }>;
}

/** How many roots type-detector was run on, for tests and the bench: what an object change costs. */
export const detectionCount = { roots: 0 };

/** More changed ids than this detect everything anew: checking each root against each id would cost more. */
const MAX_CHANGED = 500;

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
function unclaimed(
    found: PatternControl[],
    claimed: Set<string>,
    objects: Record<string, ioBroker.Object>,
    root: string,
): PatternControl[] {
    const kept: PatternControl[] = [];
    for (const control of found) {
        const ids = control.states.filter(state => state.id && !state.indicator).map(state => state.id);
        const own = ids.every(id => id === root || holderOf(objects, id) === root);
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

/**
 * The ancestor (up to three levels up) whose states type-detector may take as indicators of a device
 * at `root` (its findParentChannelOrDevice): the highest channel or device there, else the root.
 */
function scopeOf(objects: Record<string, ioBroker.Object>, root: string): string {
    let scope = root;
    let at = root;
    for (let up = 0; up < 3 && at.includes('.'); up++) {
        at = parentOf(at);
        const type = objects[at]?.type;
        if (type === 'channel' || type === 'device') {
            scope = at;
        }
    }
    return scope;
}

/** Whether a change of `changed` can change what was read at `at`: the object itself, one below it or above it. */
function touches(changed: string, at: string): boolean {
    return changed === at || changed.startsWith(`${at}.`) || at.startsWith(`${changed}.`);
}

/**
 * The changed ids plus the members a function enum among them gained or lost (type-detector reads
 * function enums; rooms change which lone states are roots and which enums hold a device, both of
 * which every detection works out anew without type-detector).
 */
function withMembers(
    changed: Set<string>,
    before: Record<string, ioBroker.Object>,
    after: Record<string, ioBroker.Object>,
): string[] {
    const all = new Set(changed);
    for (const id of changed) {
        if (id.startsWith('enum.functions.')) {
            const old = new Set(before[id] ? membersOf({ id, obj: before[id] }) : []);
            const now = new Set(after[id] ? membersOf({ id, obj: after[id] }) : []);
            [...old].filter(m => !now.has(m)).forEach(m => all.add(m));
            [...now].filter(m => !old.has(m)).forEach(m => all.add(m));
        }
    }
    return [...all];
}

/** Another detection's results for the roots no change touches; null: detect every root. */
type Reusable = (root: string, scope: string) => PatternControl[] | null;

function reusable(objects: Record<string, ioBroker.Object>, previous?: Previous): Reusable {
    if (!previous || previous.changed.size > MAX_CHANGED) {
        return () => null;
    }
    const changed = withMembers(previous.changed, previous.snapshot.objects, objects);
    const { roots } = previous.snapshot.memo;
    return (root, scope) => {
        const memo = roots.get(root);
        if (!memo || changed.some(id => touches(id, root) || touches(id, scope) || touches(id, memo.scope))) {
            return null;
        }
        return memo.controls;
    };
}

/** The detection before, and the ids of the objects changed since. */
export interface Previous {
    snapshot: DeviceSnapshot;
    changed: Set<string>;
}

/**
 * Every device in `objects` (id → object of the states, channels, devices, folders and enums). With
 * `previous`, type-detector runs only on the roots a change touches; the result is the same as without.
 */
export function detectDevices(
    objects: Record<string, ioBroker.Object>,
    language: string,
    previous?: Previous,
): DeviceSnapshot {
    const keys = Object.keys(objects).sort();
    const rooms = enumsOf(objects, keys, 'rooms');
    const functions = enumsOf(objects, keys, 'functions');
    const members = new Set([...rooms, ...functions].flatMap(membersOf));
    // a new detector per run: it caches its results by id forever
    const detector = new ChannelDetector();
    const reuse = reusable(objects, previous);
    const memo: DetectionMemo = { roots: new Map() };
    const claimed = new Set<string>();
    const devices: DetectedDevice[] = [];
    const byId = new Map<string, DetectedDevice>();
    for (const root of detectionRoots(objects, keys, members)) {
        const scope = scopeOf(objects, root);
        let found = reuse(root, scope);
        if (!found) {
            const options: DetectOptions = {
                objects,
                id: root,
                _keysOptional: keys,
                _keysOptionalSorted: true,
                _usedIdsOptional: [],
                ignoreIndicators: ['UNREACH_STICKY'],
                excludedTypes: [Types.info],
            };
            detectionCount.roots++;
            found = detector.detect(options) ?? [];
        }
        memo.roots.set(root, { controls: found, scope });
        unclaimed(found, claimed, objects, root).forEach((control, index) => {
            const device = deviceOf(control, root, index === 0);
            if (!byId.has(device.id)) {
                const entry = { ...device, rooms: holding(rooms, device), functions: holding(functions, device) };
                devices.push(entry);
                byId.set(entry.id, entry);
            }
        });
    }
    return { devices, byId, rooms, functions, objects, language, memo };
}
