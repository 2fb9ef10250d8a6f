import { HttpError } from '../http/http-error';
import type { DeviceAwareSource, EventSource } from './event-access';
import type { DeviceRole, DeviceSource } from './device-source';
import { Subscription, type EventBody, type Filter, type Sink } from './subscription';

/*
 * A subscription to a device, or to every device of a room or function: one feed listener per
 * state of the device(s), each through the same per-user gate as a state subscription, so a caller
 * gets exactly the changes it could have subscribed state by state. Its events are the state events
 * with the device and the role (type-detector's state name) added. When the devices change (a state
 * joins or leaves, a device joins a room) the listeners follow.
 */

type Release = () => Promise<void>;

/** States one device, room or function subscription follows: each is a listener in the change feed. */
export const MAX_DEVICE_STATES = 1000;

/** The listeners of one device subscription, brought in line with the device's states as they are now. */
class DeviceListeners {
    roles = new Map<string, DeviceRole>();
    private readonly listening = new Map<string, Promise<Release>>();
    private closed = false;
    private running: Promise<void> = Promise.resolve();

    constructor(
        private readonly feed: EventSource,
        private readonly devices: DeviceSource,
        private readonly id: string,
        private readonly subscription: Subscription,
    ) {}

    /** Queued: two follows never interleave. */
    follow(): Promise<void> {
        const step = this.running.then(() => this.align());
        this.running = step.catch(() => undefined);
        return step;
    }

    get size(): number {
        return this.listening.size;
    }

    private async align(): Promise<void> {
        const found = (await this.devices.statesOf(this.id)) ?? new Map<string, DeviceRole>();
        if (this.closed) {
            return;
        }
        if (found.size > MAX_DEVICE_STATES && !this.listening.size) {
            throw new HttpError(
                'INVALID_PARAMS',
                `${this.id} holds ${found.size} states: at most ${MAX_DEVICE_STATES} per subscription, subscribe its devices one by one`,
                { context: { id: this.id, limit: MAX_DEVICE_STATES } },
            );
        }
        // grown past the bound since: the first states by id stay followed
        const next =
            found.size > MAX_DEVICE_STATES
                ? new Map([...found].sort(([a], [b]) => (a < b ? -1 : 1)).slice(0, MAX_DEVICE_STATES))
                : found;
        this.roles = next;
        const gone = [...this.listening].filter(([stateId]) => !next.has(stateId));
        for (const [stateId, release] of gone) {
            this.listening.delete(stateId);
            await (
                await release
            )();
        }
        const added = [...next.keys()].filter(stateId => !this.listening.has(stateId));
        await Promise.all(
            added.map(stateId => {
                const release = this.feed.listen('state', stateId, (changed, value) =>
                    this.subscription.offer(changed, value),
                );
                this.listening.set(stateId, release);
                return release;
            }),
        );
    }

    async close(): Promise<void> {
        this.closed = true;
        await this.running;
        const all = [...this.listening.values()];
        this.listening.clear();
        await Promise.all(all.map(async release => (await release)()));
    }
}

/** Subscribes `sink` to the states of device (or room or function enum) `id`. */
export async function subscribeDevice(
    feed: DeviceAwareSource,
    sink: Sink,
    id: string,
    filter: Filter,
): Promise<Subscription> {
    const { devices } = feed;
    if (!devices) {
        throw new HttpError('INVALID_PARAMS', 'Device subscriptions are not available here', { context: { id } });
    }
    let listeners: DeviceListeners | null = null;
    const named: Sink = {
        deliver(event: EventBody) {
            const where = listeners?.roles.get(event.id);
            if (where && 'state' in event) {
                sink.deliver({ device: where.device, role: where.role, id: event.id, state: event.state });
            }
        },
    };
    const subscription = new Subscription('device', id, filter, named);
    listeners = new DeviceListeners(feed, devices, id, subscription);
    const following = listeners;
    const unwatch = devices.watch(() => void following.follow().catch(() => undefined));
    try {
        await following.follow();
    } catch (err) {
        unwatch();
        await following.close();
        throw err;
    }
    subscription.release = async () => {
        unwatch();
        await following.close();
    };
    subscription.listeners = Math.max(1, following.size);
    return subscription;
}
