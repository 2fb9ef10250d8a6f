import type { ChangeFeed } from '../storage/change-feed';
import { deadline, type Timers } from '../instance/timers';
import type { StoragePort } from '../storage/port';
import type { DeviceRole, DeviceSource } from '../events/device-source';
import { detectDevices, type DetectedDevice, type DeviceSnapshot, type Previous } from './device-detection';

/*
 * The detected devices, kept until an object changes. The first detection reads every state, channel,
 * device, folder and enum object once; an object change (an adapter creating a device, a room getting
 * a member, the system language) makes the next request detect again, so nothing needs a restart.
 * That detection starts from the one before with the changed objects put in, and runs type-detector
 * only where a change touches (src/objects/device-detection.ts): one changed state of 3,400 devices
 * costs one device's detection, not all of them.
 */

const VIEWS = ['state', 'channel', 'device', 'folder', 'enum'] as const;
const DETECTED_TYPES = new Set<string>(VIEWS);

/** Objects whose change leaves the devices as they are. */
const IGNORED = /^(system\.(?!config$)|_design\/)/;

/** How long watchers wait after an object change for more (an adapter creating a device writes many objects). */
const SETTLE_MS = 100;

/** The states of `devices` by id, each with its device and role (the first role where a state has two). */
function rolesOf(devices: DetectedDevice[]): Map<string, DeviceRole> {
    const roles = new Map<string, DeviceRole>();
    for (const device of devices) {
        for (const [role, stateId] of Object.entries(device.states)) {
            if (!roles.has(stateId)) {
                roles.set(stateId, { device: device.id, role });
            }
        }
    }
    return roles;
}

export class DeviceCatalog implements DeviceSource {
    private readonly watchers = new Set<() => void>();
    private settling = false;
    /** Counts object changes; a snapshot is current while it was begun at the latest count. */
    private generation = 0;
    private builtAt = -1;
    private current: Promise<DeviceSnapshot> | null = null;
    private listening: Promise<unknown> | null = null;
    /** The objects changed since the last detection began: the new object, null when deleted, undefined: read it. */
    private changes = new Map<string, ioBroker.Object | null | undefined>();
    /** Read everything again: nothing detected yet, or changes may have been missed. */
    private everything = true;
    private last: DeviceSnapshot | null = null;
    /** Detections run one after the other: each starts from the result of the one before. */
    private queue: Promise<unknown> = Promise.resolve();

    constructor(
        private readonly port: StoragePort,
        private readonly feed: ChangeFeed,
        /** False while change notifications may be missed: then every request detects anew. */
        private readonly usable: () => boolean,
        /** The adapter's timers: js-controller clears them when the instance stops. */
        private readonly timers: Timers,
        /** The adapter's own namespace: its tokens and sessions hold no device. */
        namespace = '',
    ) {
        // own writes are known before js-controller's notification comes back; but the adapter's own
        // objects (a token any caller may make or drop), which wait for the notification and its type
        port.onWrite(({ kind, id, recursive }) => {
            if (kind === 'object' && !(namespace && id.startsWith(`${namespace}.`))) {
                this.changed(recursive ? undefined : id);
            }
        });
    }

    /** A change of an object of a type detection never reads, that it did not read before either. */
    private passesBy(id: string, obj: ioBroker.Object | null | undefined): boolean {
        // system.config is read for the language
        const wasRead = !!this.last?.objects[id] || id === 'system.config';
        return !wasRead && (obj === null || (obj !== undefined && !DETECTED_TYPES.has(obj.type)));
    }

    /**
     * Something the detection read may have changed: `id` the object that did (`obj` as it is now, null
     * when deleted, undefined when not known); without an id anything may have.
     */
    changed(id?: string, obj?: ioBroker.Object | null): void {
        // users, groups, instances and hosts change often and hold no device; system.config holds the language
        if (id !== undefined && this.passesBy(id, obj)) {
            return;
        }
        if (id === undefined) {
            this.everything = true;
        } else if (!IGNORED.test(id)) {
            this.changes.set(id, obj);
        }
        if (id === undefined || !IGNORED.test(id)) {
            this.generation++;
            this.tellWatchers();
        }
    }

    /** State id → device and role, of a device or of every device of a room or function; null: no such device or enum. */
    async statesOf(id: string): Promise<Map<string, DeviceRole> | null> {
        const snapshot = await this.snapshot();
        const device = snapshot.byId.get(id);
        if (device) {
            return rolesOf([device]);
        }
        const category = /^enum\.(rooms|functions)\./.exec(id)?.[1] as 'rooms' | 'functions' | undefined;
        if (!category || !snapshot[category].some(entry => entry.id === id)) {
            return null;
        }
        return rolesOf(snapshot.devices.filter(each => each[category].includes(id)));
    }

    watch(listener: () => void): () => void {
        this.watchers.add(listener);
        return () => this.watchers.delete(listener);
    }

    private tellWatchers(): void {
        if (!this.watchers.size || this.settling) {
            return;
        }
        this.settling = true;
        deadline(this.timers, SETTLE_MS, () => {
            this.settling = false;
            [...this.watchers].forEach(listener => listener());
        });
    }

    /** The devices as of now: detected again when an object changed since the last detection. */
    async snapshot(): Promise<DeviceSnapshot> {
        await this.listen();
        if (this.current && this.builtAt === this.generation && this.usable()) {
            return this.current;
        }
        const building = this.queue.then(() => this.build());
        this.queue = building.catch(() => undefined);
        this.current = building;
        this.builtAt = this.generation;
        building.catch(() => {
            if (this.current === building) {
                this.current = null;
            }
        });
        return building;
    }

    private listen(): Promise<unknown> {
        this.listening ??= this.feed
            .listen('object', '*', (id, obj) => this.changed(id, (obj as ioBroker.Object | null | undefined) ?? null))
            .catch(err => {
                this.listening = null;
                throw err;
            });
        return this.listening;
    }

    private async build(): Promise<DeviceSnapshot> {
        const changes = this.changes;
        this.changes = new Map();
        const last = this.everything || !this.usable() ? null : this.last;
        this.everything = false;
        try {
            this.last = last ? await this.update(last, changes) : await this.readAll();
            return this.last;
        } catch (err) {
            this.everything = true;
            throw err;
        }
    }

    /** The detection before with `changes` put in: type-detector runs where they touch. */
    private async update(last: DeviceSnapshot, changes: Map<string, ioBroker.Object | null | undefined>) {
        const objects = { ...last.objects };
        let language = last.language;
        const changed = new Set<string>();
        for (const [id, known] of changes) {
            const obj = known === undefined ? await this.port.getForeignObjectAsync(id) : known;
            if (id === 'system.config') {
                language = languageOf(obj);
                continue;
            }
            changed.add(id);
            if (obj && DETECTED_TYPES.has(obj.type)) {
                objects[id] = obj;
            } else {
                delete objects[id];
            }
        }
        const previous: Previous = { snapshot: last, changed };
        return detectDevices(objects, language, previous);
    }

    private async readAll(): Promise<DeviceSnapshot> {
        const objects: Record<string, ioBroker.Object> = {};
        const views = await Promise.all(
            VIEWS.map(type =>
                this.port.getObjectViewAsync('system', type as 'state', { startkey: '', endkey: '\u9999' }),
            ),
        );
        for (const view of views) {
            for (const row of view?.rows ?? []) {
                if (row.value) {
                    objects[row.id] = row.value;
                }
            }
        }
        return detectDevices(objects, languageOf(await this.port.getForeignObjectAsync('system.config')));
    }
}

function languageOf(config: ioBroker.Object | null | undefined): string {
    const language = (config?.common as { language?: unknown } | undefined)?.language;
    return typeof language === 'string' && language ? language : 'en';
}
