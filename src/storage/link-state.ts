import { EventEmitter } from 'node:events';

type Client = new (settings: unknown) => { sub: unknown; userSubscriptions?: Record<string, unknown> };

interface Subscriber extends EventEmitter {
    psubscribe(pattern: string): Promise<unknown>;
}

/**
 * Whether js-controller's notification connections are up. Its DB clients reconnect on their own and
 * then resubscribe, but say nothing while doing it: changes published in between are never notified.
 * So we watch the subscriber connections themselves: down on close, up once every subscription of the
 * client is confirmed again. Reads keep working meanwhile; only what relies on notifications waits.
 */
export class StorageLink extends EventEmitter {
    private readonly down = new Set<unknown>();
    /** The client classes js-controller assigned, by the adapter property it used. */
    private readonly assigned = new Set<'States' | 'Objects'>();
    /** Clients constructed, and those whose subscriber connection was seen. */
    private readonly clients: Array<{ userSubscriptions?: Record<string, unknown> }> = [];
    private readonly watching = new Set<unknown>();
    /** False once `checkShape` found js-controller's clients changed: then nothing here can be trusted. */
    trusted = true;

    /** Call right after the adapter was constructed: js-controller loads its DB clients afterwards. */
    constructor(adapter: ioBroker.Adapter) {
        super();
        const target = adapter as unknown as Record<'States' | 'Objects', Client | undefined>;
        for (const key of ['States', 'Objects'] as const) {
            let value = target[key];
            Object.defineProperty(target, key, {
                configurable: true,
                get: () => value,
                set: (client: Client | undefined) => {
                    if (typeof client === 'function') {
                        this.assigned.add(key);
                    }
                    value = client && this.watched(client);
                },
            });
        }
    }

    get up(): boolean {
        return this.down.size === 0;
    }

    private watched(Base: Client): Client {
        const link = this;
        return class extends Base {
            constructor(settings: unknown) {
                super(settings);
                const client = this;
                link.clients.push(client);
                let sub: unknown = client.sub;
                Object.defineProperty(client, 'sub', {
                    configurable: true,
                    get: () => sub,
                    set: (next: unknown) => {
                        sub = next;
                        if (next instanceof EventEmitter) {
                            link.watch(client, next as Subscriber);
                        }
                    },
                });
            }
        };
    }

    /**
     * What of js-controller's private client shape, which this class relies on, is missing; call it once
     * the adapter has subscribed (which opens the subscriber connections). An empty list: all is there.
     * Anything listed turns `trusted` off: a link that cannot see outages must not vouch for caches.
     */
    checkShape(): string[] {
        const problems: string[] = [];
        for (const key of ['States', 'Objects'] as const) {
            if (!this.assigned.has(key)) {
                problems.push(
                    `js-controller's adapter no longer assigns its ${key.toLowerCase()} client class to adapter.${key}`,
                );
            }
        }
        for (const client of this.clients) {
            if (!this.watching.has(client)) {
                problems.push(
                    `a ${client.constructor.name || 'client'} has no subscriber connection in "sub" (an EventEmitter with psubscribe) after subscribing`,
                );
            }
            if (typeof client.userSubscriptions !== 'object' || client.userSubscriptions === null) {
                problems.push(`a ${client.constructor.name || 'client'} has no "userSubscriptions" object`);
            }
        }
        this.trusted = problems.length === 0;
        return problems;
    }

    private watch(client: { userSubscriptions?: Record<string, unknown> }, sub: Subscriber): void {
        if (typeof sub.psubscribe !== 'function') {
            return;
        }
        this.watching.add(client);
        sub.on('close', () => {
            const wasUp = this.up;
            this.down.add(client);
            if (wasUp) {
                this.emit('change', false);
            }
        });
        sub.on('ready', async () => {
            if (!this.down.has(client)) {
                return;
            }
            try {
                // the client resubscribes one pattern after the other; we need all of them active
                await Promise.all(Object.keys(client.userSubscriptions ?? {}).map(pattern => sub.psubscribe(pattern)));
            } catch {
                return;
            }
            this.down.delete(client);
            if (this.up) {
                this.emit('change', true);
            }
        });
    }
}
