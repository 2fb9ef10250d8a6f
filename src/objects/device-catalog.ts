import type { ChangeFeed } from '../storage/change-feed';
import type { StoragePort } from '../storage/port';
import { detectDevices, type DeviceSnapshot } from './device-detection';

/*
 * The detected devices, kept until an object changes. Detection reads every state, channel, device,
 * folder and enum object once; any object change (an adapter creating a device, a room getting a
 * member, the system language) makes the next request detect again, so nothing needs a restart.
 */

const VIEWS = ['state', 'channel', 'device', 'folder', 'enum'] as const;

/** Objects whose change leaves the devices as they are. */
const IGNORED = /^(system\.(?!config$)|_design\/)/;

export class DeviceCatalog {
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
        }
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
