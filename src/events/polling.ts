import { BoundedQueue } from './bounded-queue';
import { EventStats } from './event-stats';
import type { EventSource, SourceFor } from './event-access';
import { payloadText } from './event-text';
import { SubscriptionSet, type EventBody, type Sink } from './hub';
import { UserLimits, type LimitCounts } from './user-limits';
import type { Timers } from '../instance/timers';

export const DEFAULT_POLL_TIMEOUT_MS = 30_000;
const MAX_QUEUE = 1000;
const GC_INTERVAL_MS = 30_000;

export type Answer = EventBody | EventBody[] | { disconnect: true } | { overflow: true; dropped?: number } | undefined;

/**
 * A waiting poll. A class with a shared timer function rather than closures per poll: 10,000 of
 * them wait at once, and each closure and its context would be held as long.
 */
class Waiter {
    readonly timer: ioBroker.Timeout | undefined;

    constructor(
        private readonly session: PollingSession,
        readonly batch: boolean,
        /** True once the client went away: asked when an event comes, not listened to. */
        readonly gone: () => boolean,
        private readonly done: (answer: Answer) => void,
    ) {
        this.timer = session.timers.setTimeout(expire, session.timeout, this);
    }

    resolve(answer: Answer): void {
        this.session.timers.clearTimeout(this.timer);
        this.session.lastSeen = Date.now();
        this.done(answer);
        this.session.answered();
    }

    /** Forgets a waiter whose client is gone (its timer). */
    forget(): void {
        this.session.timers.clearTimeout(this.timer);
    }

    /** Its timeout ran out: it leaves the session unanswered by an event. */
    expired(): void {
        this.session.dropWaiter(this);
        this.resolve(undefined);
    }
}

function expire(waiter: Waiter): void {
    waiter.expired();
}

/**
 * An event's name on every instance on the same database: kind, id and the value's `ts` (a deletion
 * has none). Instances tell each other which events a poll handed out by these names.
 */
export function eventIdentity(event: EventBody): string {
    const value = 'state' in event ? event.state : event.obj;
    return `${'state' in event ? 's' : 'o'}:${value?.ts ?? '-'}:${event.id}`;
}

/** The events of an answer, by identity (notices such as overflow are not events). */
export function answerIdentities(answer: Answer): string[] {
    const all = Array.isArray(answer) ? answer : answer ? [answer] : [];
    return all.filter(each => 'state' in each || 'obj' in each).map(eventIdentity);
}

/** Whether an answer reports an overflow (first, or alone). */
export function reportsLoss(answer: Answer): boolean {
    const first = Array.isArray(answer) ? answer[0] : answer;
    return !!first && 'overflow' in first;
}

/** One answer of a shared session with events: its number among this instance's answers, and how many. */
export interface Handout {
    k: number;
    count: number;
}

/** How several instances on one database share sessions (src/events/polling-share.ts). */
export interface PollingShare {
    /** True while other instances live: only then do sessions cost database writes. */
    active(): boolean;
    /**
     * The session of owner and sid: here, or copied from the shared record (then it reports a loss
     * first). `claim`: for a subscribe, which ends with PollingRegistry.unclaim.
     */
    find(owner: string, sid: string, create: boolean, claim?: boolean): Promise<PollingSession | undefined>;
    /** Its subscriptions or timeout changed: resolves once the other instances copied it (or after a bound). */
    changed(session: PollingSession): Promise<void>;
    /** Before a poll takes events: what other instances handed out before is dropped here. */
    beforePoll(session: PollingSession): Promise<void>;
    /** Tells the other instances which events `answer` hands out; resolves before it may go. */
    handed(session: PollingSession, answer: Answer): Promise<Handout | undefined>;
    /** Whether that answer reached the client: the others stop waiting for it, or report its events lost. */
    delivered(session: PollingSession, handout: Handout, reached: boolean): void;
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
    /** Made when the first event must wait here: most sessions hand every event straight to a waiting poll. */
    private queue: BoundedQueue<EventBody> | null = null;
    /** Made on the first poll (30,000 sessions of one kind may exist, each costing what it holds). */
    private waiters: Waiter[] | null = null;
    /** Shared sessions only: events another instance handed out before they arrived here, by identity. */
    private handedElsewhere: Map<string, number> | null = null;
    /** Copied from the shared record: what the instance that held it had queued is lost, count unknown. */
    private lost = false;
    /** Events handed out whose answer never reached the client (counted). */
    private undelivered = 0;
    /** Set by the registry: called when a poll was answered, for a session that may now hold nothing. */
    onAnswered: (() => void) | undefined;
    /** Subscribe requests under way on it (from finding the session to the end of the request): it is theirs. */
    claims = 0;

    constructor(
        readonly user: string,
        feed: EventSource,
        readonly timers: Timers,
        private readonly stats = new EventStats(),
        readonly sid = '',
    ) {
        this.subscriptions = new SubscriptionSet(feed, this);
    }

    private events(): BoundedQueue<EventBody> {
        return (this.queue ??= new BoundedQueue<EventBody>(MAX_QUEUE, undefined, () => this.stats.dropped.polling++));
    }

    deliver(event: EventBody): void {
        if (this.handedElsewhere?.size && this.alreadyHanded(event)) {
            return;
        }
        this.stats.delivered.polling++;
        // a client that went away must not swallow the event: the next waiting poll gets it, or the queue
        for (let waiter = this.waiters?.shift(); waiter; waiter = this.waiters!.shift()) {
            if (!waiter.gone()) {
                waiter.resolve(waiter.batch ? [event] : event);
                return;
            }
            waiter.forget();
        }
        this.events().push(event);
    }

    /**
     * `done` gets the queued events at once, or the next one as it is delivered (in the same turn:
     * no promise per waiting poll), or nothing after the timeout or when the client went away.
     */
    wait(batch: boolean, gone: () => boolean, done: (answer: Answer) => void): void {
        this.lastSeen = Date.now();
        const ready = this.take(batch);
        if (ready !== undefined) {
            done(ready);
            return;
        }
        // no abort listener per poll: adding and removing one for each of 10,000 waiting polls costs more
        // than asking `gone()` when an event comes (a gone client's waiter lingers until then)
        (this.waiters ??= []).push(new Waiter(this, batch, gone, done));
    }

    /** A waiter whose timeout ran out. */
    dropWaiter(waiter: Waiter): void {
        const index = this.waiters?.indexOf(waiter) ?? -1;
        if (index !== -1) {
            this.waiters!.splice(index, 1);
        }
    }

    /** Another instance handed these events out: they leave the queue here, or are skipped when they come. */
    handedOut(identities: string[]): void {
        const left = new Map<string, number>();
        for (const identity of identities) {
            left.set(identity, (left.get(identity) ?? 0) + 1);
        }
        this.queue?.removeWhere(event => take(left, eventIdentity(event)));
        if (!left.size) {
            return;
        }
        // not here yet (on their way through the rights check), or never coming (subscribed later here)
        const pending = (this.handedElsewhere ??= new Map());
        for (const [identity, count] of left) {
            pending.set(identity, (pending.get(identity) ?? 0) + count);
        }
        for (const oldest of pending.keys()) {
            if (pending.size <= MAX_QUEUE) {
                break;
            }
            pending.delete(oldest);
        }
    }

    /**
     * The next poll answers an overflow first: `{"overflow":true}` when how many were lost is not
     * known, else `{"overflow":true,"dropped":n}`.
     */
    markLost(count?: number): void {
        if (count === undefined) {
            this.lost = true;
        } else {
            this.undelivered += count;
        }
    }

    /** Another instance reported the loss: this copy must not report it again. */
    lossReported(): void {
        this.lost = false;
        this.undelivered = 0;
    }

    private alreadyHanded(event: EventBody): boolean {
        return take(this.handedElsewhere!, eventIdentity(event));
    }

    private take(batch: boolean): Answer {
        const queue = this.queue;
        const dropped = (queue?.takeDropped() ?? 0) + this.undelivered;
        if (dropped || this.lost) {
            const overflow = this.lost ? { overflow: true as const } : { overflow: true as const, dropped };
            this.lost = false;
            this.undelivered = 0;
            if (!batch) {
                return overflow;
            }
            return [overflow as unknown as EventBody, ...(queue?.takeAll() ?? [])];
        }
        if (!queue?.length) {
            return undefined;
        }
        return batch ? queue.takeAll() : queue.shift();
    }

    hasWaiters(): boolean {
        return !!this.waiters?.length;
    }

    /** Nothing subscribed or being subscribed, nothing queued or lost to report, no poll waiting. */
    holdsNothing(): boolean {
        return (
            !this.claims &&
            !this.subscriptions.size &&
            !this.subscriptions.busy &&
            !this.waiters?.length &&
            !this.queue?.length &&
            !this.queue?.unreportedDrops &&
            !this.lost &&
            !this.undelivered
        );
    }

    answered(): void {
        this.onAnswered?.();
    }

    /** Ends every pending poll, e.g. with `{disconnect:true}` on unload. */
    end(answer: Answer): void {
        for (const waiter of this.waiters?.splice(0) ?? []) {
            waiter.resolve(answer);
        }
    }
}

/** Counts one `identity` off `counts`; false when it is not there. */
function take(counts: Map<string, number>, identity: string): boolean {
    const count = counts.get(identity);
    if (!count) {
        return false;
    }
    if (count === 1) {
        counts.delete(identity);
    } else {
        counts.set(identity, count - 1);
    }
    return true;
}

/** Sessions by user and `sid`: nobody reads another user's session. */
export class PollingRegistry {
    private readonly sessions = new Map<string, PollingSession>();
    private gc: ioBroker.Interval | undefined;
    private readonly limits: UserLimits;
    /** Set when other instances on the same database may answer this registry's sessions. */
    private share: PollingShare | null = null;

    constructor(
        private readonly sourceFor: SourceFor,
        private readonly timers: Timers,
        limits: LimitCounts = { perUser: 10_000, total: 20_000 },
        private readonly stats = new EventStats(),
    ) {
        this.limits = new UserLimits(limits, { message: 'Too many long-polling sessions', retryAfterS: 30 });
    }

    private key(user: string, sid: string): string {
        return `${user}\u0000${sid}`;
    }

    shareWith(share: PollingShare): void {
        this.share = share;
    }

    /** The share while other instances live; null alone (then nothing costs a database write). */
    shared(): PollingShare | null {
        return this.share?.active() ? this.share : null;
    }

    get(user: string, sid: string): PollingSession | undefined {
        return this.sessions.get(this.key(user, sid));
    }

    getOrCreate(user: string, sid: string): PollingSession {
        const key = this.key(user, sid);
        let session = this.sessions.get(key);
        if (!session) {
            this.limits.assertRoom(user);
            session = new PollingSession(user, this.sourceFor(user), this.timers, this.stats, sid);
            this.register(key, session);
        }
        return session;
    }

    private register(key: string, session: PollingSession): void {
        const registered = session;
        registered.onAnswered = () => {
            // with other instances the answer's delivery is still to be confirmed (a loss is reported on
            // this session): such sessions go with their last pattern or with the collector
            if (!this.shared()) {
                this.releaseIfIdle(registered);
            }
        };
        this.sessions.set(key, registered);
        this.limits.opened(registered.user);
        this.startGc();
    }

    /** A subscribe request is done with the session: it may hold nothing now. */
    unclaim(session: PollingSession): void {
        session.claims = Math.max(0, session.claims - 1);
        this.releaseIfIdle(session);
    }

    /**
     * A session that holds nothing stops counting at once, so a load test's next round of fresh
     * sessions finds room; a later request with its `sid` starts a new one, as in 4.0.2.
     */
    releaseIfIdle(session: PollingSession): void {
        // asked after every answer: most sessions still hold patterns, and that is known without the key
        if (!session.holdsNothing()) {
            return;
        }
        const key = this.key(session.user, session.sid);
        if (this.sessions.get(key) === session) {
            this.sessions.delete(key);
            this.limits.closed(session.user);
        }
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

    all(): PollingSession[] {
        return [...this.sessions.values()];
    }

    /** Silent sessions (no poll for 1.5 × their timeout) are removed with their subscriptions. */
    async collect(now = Date.now()): Promise<void> {
        for (const [key, session] of [...this.sessions]) {
            // the awaits below let requests run: a session removed or replaced meanwhile is not ours to drop
            if (
                this.sessions.get(key) === session &&
                !session.claims &&
                !session.hasWaiters() &&
                now - session.lastSeen > session.timeout * 1.5
            ) {
                this.sessions.delete(key);
                this.limits.closed(session.user);
                await session.subscriptions.clear();
            }
        }
        if (!this.sessions.size) {
            this.stopGc();
        }
    }

    async close(): Promise<void> {
        this.stopGc();
        for (const session of this.sessions.values()) {
            session.end({ disconnect: true });
            await session.subscriptions.clear();
        }
        this.sessions.clear();
        this.limits.clear();
    }

    private startGc(): void {
        this.gc ??= this.timers.setInterval(() => void this.collect(), GC_INTERVAL_MS);
    }

    private stopGc(): void {
        this.timers.clearInterval(this.gc);
        this.gc = undefined;
    }
}
