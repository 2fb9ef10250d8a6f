import { BoundedQueue } from './bounded-queue';
import { EventStats } from './event-stats';
import type { EventSource, SourceFor } from './event-access';
import { payloadText } from './event-text';
import { SubscriptionSet, type EventBody, type Sink } from './hub';
import { UserLimits, type LimitCounts } from './user-limits';

export const DEFAULT_POLL_TIMEOUT_MS = 30_000;
const MAX_QUEUE = 1000;
const GC_INTERVAL_MS = 30_000;

export type Answer = EventBody | EventBody[] | { disconnect: true } | { overflow: true; dropped: number } | undefined;

interface Waiter {
    batch: boolean;
    /** Aborted when the client went away: looked at when an event comes, not listened to. */
    signal: AbortSignal;
    resolve(answer: Answer): void;
    /** Forgets a waiter whose client is gone (its timer). */
    forget(): void;
}

/** What a poll answers on the wire: each event's text is made once for all sessions. */
export function answerText(answer: Answer): string {
    if (answer === undefined) {
        return '';
    }
    return Array.isArray(answer) ? `[${answer.map(payloadText).join(',')}]` : payloadText(answer);
}

/**
 * A long-polling client: a bounded queue of events and any number of waiting polls. Each event goes
 * to exactly one poll, so concurrent polls on one session lose nothing; an overflow is reported.
 */
export class PollingSession implements Sink {
    readonly subscriptions: SubscriptionSet;
    timeout = DEFAULT_POLL_TIMEOUT_MS;
    lastSeen = Date.now();
    private readonly queue: BoundedQueue<EventBody>;
    private readonly waiters: Waiter[] = [];

    constructor(
        readonly user: string,
        feed: EventSource,
        private readonly stats = new EventStats(),
    ) {
        this.subscriptions = new SubscriptionSet(feed, this);
        this.queue = new BoundedQueue<EventBody>(MAX_QUEUE, undefined, () => stats.dropped.polling++);
    }

    deliver(event: EventBody): void {
        this.stats.delivered.polling++;
        // a client that went away must not swallow the event: the next waiting poll gets it, or the queue
        for (let waiter = this.waiters.shift(); waiter; waiter = this.waiters.shift()) {
            if (!waiter.signal.aborted) {
                waiter.resolve(waiter.batch ? [event] : event);
                return;
            }
            waiter.forget();
        }
        this.queue.push(event);
    }

    /**
     * `done` gets the queued events at once, or the next one as it is delivered (in the same turn:
     * no promise per waiting poll), or nothing after the timeout or when the client went away.
     */
    wait(batch: boolean, signal: AbortSignal, done: (answer: Answer) => void): void {
        this.lastSeen = Date.now();
        const ready = this.take(batch);
        if (ready !== undefined) {
            done(ready);
            return;
        }
        // no abort listener per poll: adding and removing one for each of 10,000 waiting polls costs more
        // than looking at `signal.aborted` when an event comes (a gone client's waiter lingers until then)
        const timer = setTimeout(() => {
            const index = this.waiters.indexOf(waiter);
            if (index !== -1) {
                this.waiters.splice(index, 1);
            }
            waiter.resolve(undefined);
        }, this.timeout);
        const waiter: Waiter = {
            batch,
            signal,
            resolve: answer => {
                clearTimeout(timer);
                this.lastSeen = Date.now();
                done(answer);
            },
            forget: () => clearTimeout(timer),
        };
        this.waiters.push(waiter);
    }

    private take(batch: boolean): Answer {
        const dropped = this.queue.takeDropped();
        if (dropped) {
            const overflow = { overflow: true as const, dropped };
            if (!batch) {
                return overflow;
            }
            return [overflow as unknown as EventBody, ...this.queue.takeAll()];
        }
        if (!this.queue.length) {
            return undefined;
        }
        return batch ? this.queue.takeAll() : this.queue.shift();
    }

    hasWaiters(): boolean {
        return this.waiters.length > 0;
    }

    /** Ends every pending poll, e.g. with `{disconnect:true}` on unload. */
    end(answer: Answer): void {
        for (const waiter of this.waiters.splice(0)) {
            waiter.resolve(answer);
        }
    }
}

/** Sessions by user and `sid`: nobody reads another user's session. */
export class PollingRegistry {
    private readonly sessions = new Map<string, PollingSession>();
    private gc: NodeJS.Timeout | null = null;
    private readonly limits: UserLimits;

    constructor(
        private readonly sourceFor: SourceFor,
        limits: LimitCounts = { perUser: 10_000, total: 20_000 },
        private readonly stats = new EventStats(),
    ) {
        this.limits = new UserLimits(limits, { message: 'Too many long-polling sessions', retryAfterS: 30 });
    }

    private key(user: string, sid: string): string {
        return `${user}\u0000${sid}`;
    }

    get(user: string, sid: string): PollingSession | undefined {
        return this.sessions.get(this.key(user, sid));
    }

    getOrCreate(user: string, sid: string): PollingSession {
        const key = this.key(user, sid);
        let session = this.sessions.get(key);
        if (!session) {
            this.limits.assertRoom(user);
            session = new PollingSession(user, this.sourceFor(user), this.stats);
            this.sessions.set(key, session);
            this.limits.opened(user);
            this.startGc();
        }
        return session;
    }

    async remove(user: string, sid: string): Promise<void> {
        const key = this.key(user, sid);
        const session = this.sessions.get(key);
        if (session) {
            this.sessions.delete(key);
            this.limits.closed(user);
            session.end(undefined);
            await session.subscriptions.clear();
        }
    }

    get size(): number {
        return this.sessions.size;
    }

    /** Silent sessions (no poll for 1.5 × their timeout) are removed with their subscriptions. */
    async collect(now = Date.now()): Promise<void> {
        for (const [key, session] of [...this.sessions]) {
            // the awaits below let requests run: a session removed or replaced meanwhile is not ours to drop
            if (this.sessions.get(key) === session && !session.hasWaiters() && now - session.lastSeen > session.timeout * 1.5) {
                this.sessions.delete(key);
                this.limits.closed(session.user);
                await session.subscriptions.clear();
            }
        }
        if (!this.sessions.size && this.gc) {
            clearInterval(this.gc);
            this.gc = null;
        }
    }

    async close(): Promise<void> {
        if (this.gc) {
            clearInterval(this.gc);
            this.gc = null;
        }
        for (const session of this.sessions.values()) {
            session.end({ disconnect: true });
            await session.subscriptions.clear();
        }
        this.sessions.clear();
        this.limits.clear();
    }

    private startGc(): void {
        this.gc ??= setInterval(() => void this.collect(), GC_INTERVAL_MS);
        this.gc.unref();
    }
}
