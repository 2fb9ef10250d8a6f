import { HttpError } from '../http/http-error';
import type { EventSource } from './event-access';
import { subscribeDevice } from './device-events';
import { Subscription, type Filter, type Sink, type SubscriptionKind } from './subscription';

// what subscribers import from here; the subscription itself is in subscription.ts, which
// device-events.ts builds on without a way back here
export { Subscription, type EventBody, type Filter, type Sink, type SubscriptionKind } from './subscription';

/** Connects subscriptions to the reference-counted change feed. */
export async function subscribe(
    feed: EventSource,
    sink: Sink,
    kind: SubscriptionKind,
    pattern: string,
    filter: Filter,
): Promise<Subscription> {
    if (kind === 'device') {
        return subscribeDevice(feed, sink, pattern, filter);
    }
    const subscription = new Subscription(kind, pattern, filter, sink);
    subscription.release = await feed.listen(kind, pattern, (id, value) => subscription.offer(id, value));
    return subscription;
}

/** Patterns one long-polling session, URL hook or event stream may hold: each is a listener in the change feed. */
export const MAX_PATTERNS = 1000;
/** Listeners it may hold in all, the states of device, room and function subscriptions each counted. */
export const MAX_LISTENERS = 5000;

/** 422 naming the parameter that would have gone beyond MAX_PATTERNS. */
export function tooManyPatterns(params: string[]): HttpError {
    return new HttpError(
        'INVALID_PARAMS',
        `At most ${MAX_PATTERNS} patterns per polling session, URL hook or event stream`,
        {
            context: {
                details: params.map(param => ({
                    param,
                    problem: `more than ${MAX_PATTERNS} patterns for one session, URL hook or stream; unsubscribe some first`,
                })),
            },
        },
    );
}

/** A subscriber's patterns, at most MAX_PATTERNS: subscribing the same pattern again replaces its filter. */
export class SubscriptionSet {
    private readonly subs = new Map<string, Subscription>();
    /** Adds under way: counted so that concurrent subscribes cannot pass the limit together. */
    private adding = 0;
    private cleared = false;

    constructor(
        private readonly feed: EventSource,
        private readonly sink: Sink,
    ) {}

    /** `param`: the request parameter that named `pattern`, for the 422 beyond MAX_PATTERNS. */
    async add(kind: SubscriptionKind, pattern: string, filter: Filter, param = 'pattern'): Promise<Subscription> {
        const key = `${kind}:${pattern}`;
        if (!this.subs.has(key) && this.subs.size + this.adding >= MAX_PATTERNS) {
            throw tooManyPatterns([param]);
        }
        this.adding++;
        let fresh: Subscription;
        try {
            fresh = await subscribe(this.feed, this.sink, kind, pattern, filter);
        } finally {
            this.adding--;
        }
        if (this.cleared) {
            // dropped while it was made (a revoked token's hook): nothing may hold its listeners
            await fresh.release();
            return fresh;
        }
        const old = this.subs.get(key);
        const others = [...this.subs.values()].reduce((sum, sub) => sum + (sub === old ? 0 : sub.listeners), 0);
        if (others + fresh.listeners > MAX_LISTENERS) {
            await fresh.release();
            throw new HttpError(
                'INVALID_PARAMS',
                `At most ${MAX_LISTENERS} states followed per polling session, URL hook or event stream (devices count each of their states)`,
                { context: { params: [param], limit: MAX_LISTENERS } },
            );
        }
        this.subs.set(key, fresh);
        await old?.release();
        return fresh;
    }

    /** Without a pattern: everything of that kind. */
    async remove(kind: SubscriptionKind, pattern?: string): Promise<void> {
        for (const [key, sub] of [...this.subs]) {
            if (sub.kind === kind && (pattern === undefined || sub.pattern === pattern)) {
                this.subs.delete(key);
                await sub.release();
            }
        }
    }

    list(): Array<{ kind: SubscriptionKind; pattern: string; filter: Filter }> {
        return [...this.subs.values()].map(({ kind, pattern, filter }) => ({ kind, pattern, filter }));
    }

    patterns(kind: SubscriptionKind): string[] {
        return [...this.subs.values()].filter(s => s.kind === kind).map(s => s.pattern);
    }

    get size(): number {
        return this.subs.size;
    }

    /** True while a subscribe is under way: the set is about to hold a pattern. */
    get busy(): boolean {
        return this.adding > 0;
    }

    async clear(): Promise<void> {
        this.cleared = true;
        const all = [...this.subs.values()];
        this.subs.clear();
        await Promise.all(all.map(s => s.release()));
    }
}
