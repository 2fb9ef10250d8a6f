import { paramsError } from '../http/parse-params';
import type { CallerData } from '../storage/data';
import { DEVICE_TYPES, type DetectedDevice, type DeviceSnapshot, type EnumEntry } from './device-detection';

/*
 * The devices as one caller sees them: only the states it may read (a device with none is not
 * there for it), only the rooms and functions it may read, names in the asked language.
 */

export interface DeviceFilter {
    room?: string;
    function?: string;
    type?: string;
    lang?: string;
}

export interface NamedEnum {
    id: string;
    name: string;
}

export interface DeviceStateEntry {
    id: string;
    val: ioBroker.StateValue | null;
    [field: string]: unknown;
}

export interface DeviceEntry {
    id: string;
    name: string;
    type: string;
    rooms: NamedEnum[];
    functions: NamedEnum[];
    states: Record<string, DeviceStateEntry>;
}

/** A name in `lang`, else English, else any translation, else `fallback`. */
export function nameIn(name: unknown, lang: string, fallback: string): string {
    if (typeof name === 'string' && name) {
        return name;
    }
    if (name && typeof name === 'object') {
        const texts = name as Record<string, unknown>;
        const text = [texts[lang], texts.en, ...Object.values(texts)].find(t => typeof t === 'string' && t);
        if (typeof text === 'string') {
            return text;
        }
    }
    return fallback;
}

/** Every text an enum is known by: its id, the last part of it, each translation of its name. */
function namesOf(entry: EnumEntry): string[] {
    const name = entry.obj.common?.name as unknown;
    const texts = typeof name === 'string' ? [name] : Object.values((name ?? {}) as Record<string, unknown>);
    return [entry.id, entry.id.split('.').pop() ?? '', ...texts]
        .filter((t): t is string => typeof t === 'string')
        .map(t => t.toLowerCase());
}

/**
 * The enum a `room=` / `function=` value names among those the caller may read: its id, or the one
 * enum whose last id part or name it is; 422 for none, and for several (a script must not switch the
 * devices of another room because two share a name).
 */
function enumsNamed(param: string, given: string, visible: EnumEntry[]): Set<string> {
    const wanted = given.trim().toLowerCase();
    const exact = visible.find(entry => entry.id.toLowerCase() === wanted);
    const found = exact ? [exact.id] : visible.filter(entry => namesOf(entry).includes(wanted)).map(entry => entry.id);
    const kind = param === 'room' ? 'room' : 'function';
    if (!found.length) {
        throw paramsError([{ param, problem: `names no ${kind} (an enum id or name)` }], [param]);
    }
    if (found.length > 1) {
        throw paramsError(
            [{ param, problem: `names ${found.length} ${kind}s (${found.slice(0, 10).join(', ')}): give the enum id` }],
            [param],
        );
    }
    return new Set(found);
}

/** The enums of a category the caller may read. */
async function visibleEnums(data: CallerData, enums: EnumEntry[]): Promise<EnumEntry[]> {
    const visible = await data.visibleObjects(Object.fromEntries(enums.map(entry => [entry.id, entry.obj])));
    return enums.filter(entry => entry.id in visible).map(entry => ({ id: entry.id, obj: visible[entry.id] }));
}

/** The devices the filter asks for, before the read rights of their states are applied. */
function matching(
    snapshot: DeviceSnapshot,
    filter: DeviceFilter,
    inRooms: Set<string> | null,
    inFunctions: Set<string> | null,
): DetectedDevice[] {
    if (filter.type !== undefined && !DEVICE_TYPES.includes(filter.type)) {
        throw paramsError([{ param: 'type', problem: `is no device type (${DEVICE_TYPES.join(', ')})` }], ['type']);
    }
    return snapshot.devices.filter(
        device =>
            (filter.type === undefined || device.type === filter.type) &&
            (!inRooms || device.rooms.some(id => inRooms.has(id))) &&
            (!inFunctions || device.functions.some(id => inFunctions.has(id))),
    );
}

function stateEntry(id: string, obj: ioBroker.Object | undefined, state: ioBroker.State | null): DeviceStateEntry {
    const common = (obj?.common ?? {}) as Partial<ioBroker.StateCommon>;
    const entry: DeviceStateEntry = { id, val: state?.val ?? null };
    if (state) {
        entry.ack = state.ack;
        entry.ts = state.ts;
        entry.lc = state.lc;
    }
    for (const field of ['role', 'type', 'unit', 'min', 'max', 'step', 'states', 'read', 'write'] as const) {
        if (common[field] !== undefined) {
            entry[field] = common[field];
        }
    }
    return entry;
}

/** The enums (as the caller sees them: only readable members) holding one of `ids`. */
function holdingFor(enums: EnumEntry[], ids: Set<string>, lang: string): NamedEnum[] {
    return enums
        .filter(entry => membersOf(entry).some(member => typeof member === 'string' && ids.has(member)))
        .map(entry => ({ id: entry.id, name: nameIn(entry.obj.common?.name, lang, entry.id) }));
}

function membersOf(entry: EnumEntry): unknown[] {
    const members = (entry.obj.common as { members?: unknown }).members;
    return Array.isArray(members) ? members : [];
}

/** The device's root and its parents, and the states the caller may read: what its rooms are found by. */
function placesOf(root: string, stateIds: string[]): Set<string> {
    const ids = new Set(stateIds);
    for (let at = root; at; at = at.slice(0, Math.max(0, at.lastIndexOf('.')))) {
        ids.add(at);
    }
    return ids;
}

/** The caller's devices (id → entry) among those `filter` asks for; `only` limits them to these ids. */
export async function visibleDevices(
    data: CallerData,
    snapshot: DeviceSnapshot,
    filter: DeviceFilter,
    only?: string[],
): Promise<Record<string, DeviceEntry>> {
    const lang = filter.lang || snapshot.language;
    const rooms = await visibleEnums(data, snapshot.rooms);
    const functions = await visibleEnums(data, snapshot.functions);
    const wanted = only && new Set(only);
    // the filter on every member is wider than on the caller's: narrowed again below
    const inRooms = filter.room !== undefined ? enumsNamed('room', filter.room, rooms) : null;
    const inFunctions = filter.function !== undefined ? enumsNamed('function', filter.function, functions) : null;
    const candidates = matching(snapshot, filter, inRooms, inFunctions).filter(
        device => !wanted || wanted.has(device.id),
    );
    const stateObjects: Record<string, ioBroker.Object> = {};
    const roots: Record<string, ioBroker.Object> = {};
    for (const device of candidates) {
        for (const id of Object.values(device.states)) {
            stateObjects[id] = snapshot.objects[id];
        }
        if (snapshot.objects[device.root]) {
            roots[device.root] = snapshot.objects[device.root];
        }
    }
    const states = await data.readableStatesOf(stateObjects);
    const namedRoots = await data.visibleObjects(roots);
    const found: Record<string, DeviceEntry> = {};
    for (const device of candidates) {
        const readable = Object.entries(device.states).filter(([, id]) => id in states);
        // a further device of a channel is named by its main state: never one the caller may not read
        if (!readable.length || (device.id !== device.root && !(device.id in states))) {
            continue;
        }
        const places = placesOf(
            device.root,
            readable.map(([, id]) => id),
        );
        const entry: DeviceEntry = {
            id: device.id,
            name: nameIn(namedRoots[device.root]?.common?.name, lang, device.root.split('.').pop() ?? device.root),
            type: device.type,
            rooms: holdingFor(rooms, places, lang),
            functions: holdingFor(functions, places, lang),
            states: Object.fromEntries(
                readable.map(([role, id]) => [role, stateEntry(id, snapshot.objects[id], states[id])]),
            ),
        };
        if (
            (inRooms && !entry.rooms.some(e => inRooms.has(e.id))) ||
            (inFunctions && !entry.functions.some(e => inFunctions.has(e.id)))
        ) {
            continue;
        }
        found[device.id] = entry;
    }
    return found;
}

/** The rooms or functions the caller may read, each with the caller's devices in it. */
export async function enumsWithDevices(
    data: CallerData,
    snapshot: DeviceSnapshot,
    category: 'rooms' | 'functions',
    lang: string | undefined,
): Promise<Record<string, { id: string; name: string; devices: Array<{ id: string; name: string; type: string }> }>> {
    const language = lang || snapshot.language;
    const enums = await visibleEnums(data, snapshot[category]);
    const devices = Object.values(await visibleDevices(data, snapshot, { lang: language }));
    const answer: Record<
        string,
        { id: string; name: string; devices: Array<{ id: string; name: string; type: string }> }
    > = {};
    for (const entry of enums) {
        answer[entry.id] = {
            id: entry.id,
            name: nameIn(entry.obj.common?.name, language, entry.id),
            devices: devices
                .filter(device => device[category].some(e => e.id === entry.id))
                .map(({ id, name, type }) => ({ id, name, type })),
        };
    }
    return answer;
}
