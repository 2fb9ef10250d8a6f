import { BoundedQueue } from './bounded-queue';
import { EventStats } from './event-stats';
import { eventDigest, payloadText, textDigest } from './event-text';
import type { EventSource } from './event-access';
import type { TargetPolicy } from '../messaging/target-guard';
import { deliver, type HookMethod } from './hook-delivery';
import { SubscriptionSet, type EventBody, type Filter, type Sink, type SubscriptionKind } from './hub';
import type { Timers } from '../instance/timers';

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
    /** The adapter's timers: retries and the registry's checks and batched saves. */
    timers: Timers;
}

type Payload = EventBody | { test: true } | { disconnect: true } | { overflow: true; dropped: number };

function isEvent(payload: Payload): payload is EventBody {
    return 'state' in payload || 'obj' in payload;
}

/** One change, named alike on every instance (all hear the same notification): its id and its value's `ts`. */
export function eventIdentity(event: EventBody): string {
    const value = 'state' in event ? event.state : event.obj;
    return `${event.id}\u0000${(value as { ts?: number } | null)?.ts ?? '-'}`;
}

/**
 * One URL hook: its subscriptions and a queue delivered in order, one call at a time, retried with
 * exponential backoff and jitter. Only consecutive failures count; a success forgives them.
 * With several instances on one database, one delivers; on the others the hook stands by: it keeps
 * the same events until the deliverer reports them sent, to send them itself if the deliverer dies.
 */
export class Hook implements Sink {
    readonly subscriptions: SubscriptionSet;
    failures = 0;
    /** The instance the stored record names as deliverer, and when the record last changed (src/events/hook-sharing.ts). */
    home = '';
    at = 0;
    private readonly queue: BoundedQueue<EventBody>;
    private standby: BoundedQueue<EventBody> | null = null;
    /** Events a standby queue could not keep: told as an overflow once this instance delivers. */
    private missed = 0;
    /** Taken from the queue and not yet delivered: retried as it is, so a drop cannot hit it. */
    private inFlight: Payload | null = null;
    private pumping = false;
    private closed = false;
    private retryTimer: ioBroker.Timeout | undefined;
    private readonly stats: EventStats;
    /** `url` parsed on the first call (a stored record's URL may be bad: that call fails like any other). */
    private target: URL | null = null;
    /** Owner and URL: one hook per pair. */
    readonly key: string;
    /** The hook's half of every message id: made with the hook, so that a fan-out only sends. */
    private readonly keyDigest: string;

    constructor(
        readonly user: string,
        readonly url: string,
        readonly method: HookMethod,
        readonly secret: string | undefined,
        feed: EventSource,
        private readonly settings: HookSettings,
        private readonly onDead: (hook: Hook) => void,
        /** Told of every event the receiver confirmed. */
        private readonly onSent?: (hook: Hook, event: EventBody) => void,
    ) {
        this.key = `${user}\u0000${url}`;
        this.keyDigest = textDigest(this.key);
        this.subscriptions = new SubscriptionSet(feed, this);
        this.stats = settings.stats ?? new EventStats();
        this.queue = new BoundedQueue<EventBody>(MAX_QUEUE, undefined, () => this.stats.dropped.hook++);
    }

    get delivering(): boolean {
        return !this.standby;
    }

    deliver(event: EventBody): void {
        if (this.closed) {
            return;
        }
        if (this.standby) {
            this.standby.push(event);
            return;
        }
        this.stats.delivered.hook++;
        this.queue.push(event);
        void this.pump();
    }

    /** Never throws: a URL that does not parse, or a target the policy now refuses, rejects like a failed call (unload sends to every hook in turn). */
    async send(payload: Payload): Promise<void> {
        const text = payloadText(payload);
        this.target ??= new URL(this.url);
        return deliver(this.target, text, {
            method: this.method,
            secret: this.secret,
            timeoutMs: this.settings.hookTimeout,
            targets: this.settings.targets,
            // the same event gets the same id on a retry and on any instance: the hook's digest and the
            // event's, each 192 bits (a writer controls the event's text: two events of one hook must not share an id)
            messageId: isEvent(payload) ? `msg_${this.keyDigest}${eventDigest(payload)}` : undefined,
        });
    }

    /** Another instance delivers: keep what it has not confirmed yet. What is queued and not being sent waits here too. */
    standBy(): void {
        if (this.standby) {
            return;
        }
        const standby = new BoundedQueue<EventBody>(MAX_QUEUE);
        if (this.inFlight && !this.pumping && isEvent(this.inFlight)) {
            standby.push(this.inFlight);
            this.inFlight = null;
        }
        this.queue.takeAll().forEach(event => standby.push(event));
        this.standby = standby;
    }

    /** This instance delivers now: first what it kept standing by, in order, told of what it could not keep. */
    takeOver(): void {
        const standby = this.standby;
        if (!standby) {
            return;
        }
        this.standby = null;
        this.missed += standby.takeDropped();
        standby.takeAll().forEach(event => this.queue.push(event));
        void this.pump();
    }

    /** The deliverer confirmed everything up to `identity`: forget it here. */
    confirmed(identity: string): void {
        const standby = this.standby;
        if (!standby) {
            return;
        }
        let count = 0;
        for (const event of standby.values()) {
            count++;
            if (eventIdentity(event) === identity) {
                for (; count > 0; count--) {
                    standby.shift();
                }
                return;
            }
        }
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
        this.settings.timers.clearTimeout(this.retryTimer);
    }

    private async pump(): Promise<void> {
        if (this.pumping || this.retryTimer || this.standby) {
            return;
        }
        this.pumping = true;
        try {
            while (!this.closed && !this.standby) {
                if (!this.inFlight) {
                    const dropped = this.queue.takeDropped() + this.missed;
                    this.missed = 0;
                    // the receiver learns that events were lost instead of silently missing them
                    this.inFlight = dropped ? { overflow: true, dropped } : (this.queue.shift() ?? null);
                }
                if (!this.inFlight) {
                    return;
                }
                try {
                    const sent = this.inFlight;
                    await this.send(sent);
                    this.inFlight = null;
                    this.failures = 0;
                    if (isEvent(sent)) {
                        this.onSent?.(this, sent);
                    }
                } catch {
                    if (this.failed()) {
                        this.retryTimer = this.settings.timers.setTimeout(() => {
                            this.retryTimer = undefined;
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
    subscriptions: Array<{ kind: SubscriptionKind; pattern: string; filter: Filter }>;
    /** When the record last changed (ms; newer wins over other instances' records of the same hook). */
    at?: number;
    /** The instance that delivers while it lives; missing in lists of earlier versions: the list's instance. */
    home?: string;
    /** Deleted here: kept while another instance's list still holds an older record. */
    deleted?: true;
}
