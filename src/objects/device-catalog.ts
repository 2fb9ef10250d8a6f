import type { ChangeFeed } from '../storage/change-feed';
import type { StoragePort } from '../storage/port';
import type { DeviceRole, DeviceSource } from '../events/device-events';
import { detectDevices, type DetectedDevice, type DeviceSnapshot } from './device-detection';

/*
 * The detected devices, kept until an object changes. Detection reads every state, channel, device,
 * folder and enum object once; any object change (an adapter creating a device, a room getting a
 * member, the system language) makes the next request detect again, so nothing needs a restart.
 */

const VIEWS = ['state', 'channel', 'device', 'folder', 'enum'] as const;

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
    private settleTimer: NodeJS.Timeout | null = null;
    /** Counts object changes; a snapshot is current while it was begun at the latest count. */
    private generation = 0;
    private builtAt = -1;
    private current: Promise<DeviceSnapshot> | null = null;
    private listening: Promise<unknown> | null = null;

    constructor(
        private readonly port: StoragePort,
        private readonly feed: ChangeFeed,
        /** False while change notifications may be missed: then every request detects anew. */
        private readonly usable: () => boolean,
    ) {
        // own writes are known before js-controller's notification comes back
        port.onWrite(({ kind, id }) => {
            if (kind === 'object') {
                this.changed(id);
            }
        });
    }

    /** Something the detection read may have changed (`id`: the object that did; none: anything). */
    changed(id?: string): void {
        // users, groups, instances and hosts change often and hold no device; system.config holds the language
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
        if (!this.watchers.size || this.settleTimer) {
            return;
        }
        this.settleTimer = setTimeout(() => {
            this.settleTimer = null;
            [...this.watchers].forEach(listener => listener());
        }, SETTLE_MS);
        this.settleTimer.unref?.();
    }

    /** The devices as of now: detected again when an object changed since the last detection. */
    async snapshot(): Promise<DeviceSnapshot> {
        await this.listen();
        if (this.current && this.builtAt === this.generation && this.usable()) {
            return this.current;
        }
        const building = this.build();
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
            .listen('object', '*', id => this.changed(id))
            .catch(err => {
                this.listening = null;
                throw err;
            });
        return this.listening;
    }

    private async build(): Promise<DeviceSnapshot> {
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
        const config = await this.port.getForeignObjectAsync('system.config');
        const language = (config?.common as { language?: unknown } | undefined)?.language;
        return detectDevices(objects, typeof language === 'string' && language ? language : 'en');
    }
}
