import type { ChangeKind } from '../storage/change-feed';
import { BoundedQueue } from './bounded-queue';
import { EventStats } from './event-stats';
import { payloadText } from './event-text';
import type { EventSource } from './event-access';
import type { TargetPolicy } from '../messaging/target-guard';
import { deliver, type HookMethod } from './hook-delivery';
import { SubscriptionSet, type EventBody, type Filter, type Sink } from './hub';

const MAX_QUEUE = 1000;
const MAX_BACKOFF_MS = 30_000;

export interface HookSettings {
    hookTimeout: number;
    /** What a hook may reach (this machine always, link-local when allowed). */
    targets: TargetPolicy;
    /** Consecutive failed deliveries after which a hook is dropped. */
    maxFailures: number;
    /** First retry delay; doubles with every failure, with jitter. */
    retryBaseMs: number;
    /** Counted for /metrics: deliveries, drops, failures. */
    stats?: EventStats;
}

type Payload = EventBody | { test: true } | { disconnect: true } | { overflow: true; dropped: number };

/**
 * One URL hook: its subscriptions and a queue delivered in order, one call at a time, retried with
 * exponential backoff and jitter. Only consecutive failures count; a success forgives them.
 */
export class Hook implements Sink {
    readonly subscriptions: SubscriptionSet;
    failures = 0;
    private readonly queue: BoundedQueue<EventBody>;
    /** Taken from the queue and not yet delivered: retried as it is, so a drop cannot hit it. */
    private inFlight: Payload | null = null;
    private pumping = false;
    private closed = false;
    private retryTimer: NodeJS.Timeout | null = null;
    private readonly stats: EventStats;

    constructor(
        readonly user: string,
        readonly url: string,
        readonly method: HookMethod,
        readonly secret: string | undefined,
        feed: EventSource,
        private readonly settings: HookSettings,
        private readonly onDead: (hook: Hook) => void,
    ) {
        this.subscriptions = new SubscriptionSet(feed, this);
        this.stats = settings.stats ?? new EventStats();
        this.queue = new BoundedQueue<EventBody>(MAX_QUEUE, undefined, () => this.stats.dropped.hook++);
    }

    deliver(event: EventBody): void {
        if (this.closed) {
            return;
        }
        this.stats.delivered.hook++;
        this.queue.push(event);
        void this.pump();
    }

    send(payload: Payload): Promise<void> {
        return deliver(this.url, payloadText(payload), {
            method: this.method,
            secret: this.secret,
            timeoutMs: this.settings.hookTimeout,
            targets: this.settings.targets,
        });
    }

    /** Health check: a `{test:true}` call that counts like a delivery. */
    async check(): Promise<void> {
        try {
            await this.send({ test: true });
            this.failures = 0;
        } catch {
            this.failed();
        }
    }

    close(): void {
        this.closed = true;
        if (this.retryTimer) {
            clearTimeout(this.retryTimer);
        }
    }

    private async pump(): Promise<void> {
        if (this.pumping || this.retryTimer) {
            return;
        }
        this.pumping = true;
        try {
            while (!this.closed) {
                if (!this.inFlight) {
                    const dropped = this.queue.takeDropped();
                    // the receiver learns that events were lost instead of silently missing them
                    this.inFlight = dropped ? { overflow: true, dropped } : (this.queue.shift() ?? null);
                }
                if (!this.inFlight) {
                    return;
                }
                try {
                    await this.send(this.inFlight);
                    this.inFlight = null;
                    this.failures = 0;
                } catch {
                    if (this.failed()) {
                        this.retryTimer = setTimeout(() => {
                            this.retryTimer = null;
                            void this.pump();
                        }, this.backoff());
                    }
                    return;
                }
            }
        } finally {
            this.pumping = false;
        }
    }

    /** Counts a failure; false once the hook is given up. */
    private failed(): boolean {
        this.failures++;
        this.stats.hookFailures++;
        if (this.failures >= this.settings.maxFailures) {
            this.close();
            this.onDead(this);
            return false;
        }
        return true;
    }

    private backoff(): number {
        const base = Math.min(MAX_BACKOFF_MS, this.settings.retryBaseMs * 2 ** (this.failures - 1));
        return Math.round(base * (0.8 + Math.random() * 0.4));
    }
}

export interface StoredHook {
    user: string;
    url: string;
    method: HookMethod;
    secret?: string;
    subscriptions: Array<{ kind: ChangeKind; pattern: string; filter: Filter }>;
}
