import { ADMIN_USER, mayReadObject, mayReadState, type Acl, type ObjectAcl } from '../access/rules';
import { narrowObject } from '../access/scope';
import { aliasSource } from '../access/read-checks';
import type { ChangeFeed, ChangeKind, ChangeListener } from '../storage/change-feed';
import type { DeviceSource } from './device-source';

/** What subscriptions listen to: the change feed itself, or the feed as one user may see it. */
export interface EventSource {
    listen(kind: ChangeKind, pattern: string, listener: ChangeListener): Promise<() => Promise<void>>;
}

/** A source that also knows the devices (the events of one owner). */
export type DeviceAwareSource = EventSource & { devices?: DeviceSource };

/** What sessions, hooks and streams of one owner (a user, or an API token: src/access/owner.ts) may see. */
export type SourceFor = (owner: string) => EventSource;

/** The rights of an owner now; null when it has none any more (a revoked or expired token). */
export type AclOf = (owner: string) => Promise<Acl | null>;

/** An event as streams deliver it (src/events/hub.ts EventBody; spelled out: hub imports this file). */
type LoggedEvent = { id: string; state: ioBroker.State | null } | { id: string; obj: ioBroker.Object | null };

/** What a state event's check needs of its object: its ACL, and for an alias the state it reads from. */
type Guard = { acl: ObjectAcl | null; source?: string };

function guardOf(id: string, obj: unknown): Guard {
    return { acl: (obj as { acl?: ObjectAcl } | null | undefined)?.acl ?? null, source: aliasSource(id, obj) };
}

/** Object ACLs kept for event checks; the oldest go first. */
const MAX_CACHED_ACLS = 10_000;

/**
 * Filters events per user the way js-controller filters reads, so a pattern subscription never shows
 * a state or object the user could not read. Object ACLs are cached and refreshed by object changes.
 */
export class EventAccess {
    private readonly objectAcls = new Map<string, Promise<Guard>>();
    private watching: Promise<unknown> | null = null;
    /** The detected devices, for device subscriptions (src/events/device-events.ts). */
    private devices?: DeviceSource;
    private adminSource: DeviceAwareSource;

    constructor(
        private readonly feed: ChangeFeed,
        private readonly aclOf: AclOf,
        private readonly loadObject: (id: string) => Promise<{ acl?: ObjectAcl; common?: unknown } | null | undefined>,
        /** onlyAllowWhenUserIsOwner: the same owner-only rule as single reads. */
        private readonly ownerOnly = false,
    ) {
        this.adminSource = feed;
    }

    /** Lets subscriptions follow devices; each state of a device then passes the same check as a state subscription. */
    useDevices(devices: DeviceSource): void {
        this.devices = devices;
        this.adminSource = { listen: (kind, pattern, listener) => this.feed.listen(kind, pattern, listener), devices };
    }

    /** The administrator sees everything, without any per-event cost (through a token, its scope applies). */
    sourceFor = (owner: string): DeviceAwareSource => {
        if (owner === ADMIN_USER) {
            return this.adminSource;
        }
        return {
            listen: (kind, pattern, listener) => this.listenAs(owner, kind, pattern, listener),
            devices: this.devices,
        };
    };

    /** Whether `owner` may receive this event now (a replayed one: rights may have changed since it happened). */
    mayRead = (owner: string, event: LoggedEvent): Promise<boolean> => {
        if (owner === ADMIN_USER) {
            return Promise.resolve(true);
        }
        if ('state' in event) {
            return this.allowed(owner, 'state', event.id, event.state);
        }
        // the object as logged, and as it is now: a tightened ACL applies to what happened before it
        return this.allowed(owner, 'object', event.id, event.obj).then(
            async logged =>
                logged && this.allowed(owner, 'object', event.id, (await this.loadObject(event.id)) ?? event.obj),
        );
    };

    private async listenAs(
        owner: string,
        kind: ChangeKind,
        pattern: string,
        listener: ChangeListener,
    ): Promise<() => Promise<void>> {
        await this.watchObjects();
        let closed = false;
        let queue: Promise<void> | null = null;
        // checks may wait for the DB; events still arrive in the order they happened
        const gated: ChangeListener = (id, value) => {
            const step = (queue ?? Promise.resolve())
                .then(() => this.allowed(owner, kind, id, value))
                .then(
                    ok => {
                        if (ok && !closed) {
                            listener(id, value);
                        }
                    },
                    () => undefined,
                );
            queue = step;
            void step.then(() => {
                if (queue === step) {
                    queue = null;
                }
            });
        };
        const release = await this.feed.listen(kind, pattern, gated);
        return () => {
            closed = true;
            return release();
        };
    }

    private async allowed(owner: string, kind: ChangeKind, id: string, value: unknown): Promise<boolean> {
        const acl = await this.aclOf(owner);
        if (!acl) {
            return false;
        }
        if (kind === 'object') {
            // the event carries the object; a deletion (null) is shown like js-controller shows a missing object.
            // One text goes to every receiver: an enum naming ids outside a token's scope is not sent to it at all
            const scope = acl.token?.scope;
            return (
                mayReadObject(acl, id, value as { acl?: ObjectAcl } | null) &&
                (!scope || narrowObject(scope, value) === value)
            );
        }
        // the rule of a single read, with the object's ACL as it is now: an ACL change applies to the next event
        const guard = await this.objectAcl(id);
        if (!this.mayReadWith(acl, id, guard)) {
            return false;
        }
        // js-controller publishes an alias's change when its source changes: the source's rule applies too
        return !guard.source || this.mayReadWith(acl, guard.source, await this.objectAcl(guard.source));
    }

    private mayReadWith(acl: Acl, id: string, guard: Guard): boolean {
        return mayReadState(acl, id, guard.acl ? { acl: guard.acl } : null, this.ownerOnly);
    }

    /** Forgets every object ACL, e.g. after a storage outage in which changes went unnotified. */
    forget(): void {
        this.objectAcls.clear();
    }

    private objectAcl(id: string): Promise<Guard> {
        let cached = this.objectAcls.get(id);
        if (!cached) {
            cached = this.loadObject(id).then(obj => guardOf(id, obj));
            cached.catch(() => this.objectAcls.delete(id));
            if (this.objectAcls.size >= MAX_CACHED_ACLS) {
                this.objectAcls.delete(this.objectAcls.keys().next().value!);
            }
            this.objectAcls.set(id, cached);
        }
        return cached;
    }

    private watchObjects(): Promise<unknown> {
        this.watching ??= this.feed
            .listen('object', '*', (id, obj) => {
                if (this.objectAcls.has(id)) {
                    this.objectAcls.set(id, Promise.resolve(guardOf(id, obj)));
                }
            })
            .catch(err => {
                this.watching = null;
                throw err;
            });
        return this.watching;
    }
}
