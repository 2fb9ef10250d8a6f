import { HttpError } from '../http/http-error';
import type { ChangeKind } from '../storage/change-feed';
import type { EventSource } from './event-access';
import { subscribeDevice } from './device-events';

/**
 * The event bodies of 4.0.2: `{id, state}` for states, `{id, obj}` for objects (null on deletion);
 * a device subscription's state events also name the device and the state's role in it.
 */
export type EventBody =
    | { id: string; state: ioBroker.State | null; device?: string; role?: string }
    | { id: string; obj: ioBroker.Object | null };

/** What a subscription follows: states or objects by pattern, or the states of a device, room or function. */
export type SubscriptionKind = ChangeKind | 'device';

export interface Filter {
    /** Only changed values. */
    onchange?: boolean;
    /** Only when the number moved at least this far from the last reported value. */
    delta?: number;
}

export interface Sink {
    deliver(event: EventBody): void;
}

/*
 * The body of the last change offered, reused while the same change goes to the next subscription:
 * one object for the 10,000 sessions of a fan-out instead of one each. Nobody changes a body after
 * it was made (queues, answers and frames only read it).
 */
let lastState: { id: string; state: ioBroker.State | null } | null = null;
let lastObject: { id: string; obj: ioBroker.Object | null } | null = null;

function stateBody(id: string, state: ioBroker.State | null): EventBody {
    if (lastState?.id !== id || lastState.state !== state) {
        lastState = { id, state };
    }
    return lastState;
}

function objectBody(id: string, obj: ioBroker.Object | null): EventBody {
    if (lastObject?.id !== id || lastObject.obj !== obj) {
        lastObject = { id, obj };
    }
    return lastObject;
}

/** Until the feed hands over the real one: one function for all, not one per subscription. */
const releaseNothing = async (): Promise<void> => undefined;

/** One pattern of one subscriber, with its own filter memory per id (4.0.2 shared one for a pattern). */
export class Subscription {
    /** The last reported value per id, kept only when a filter compares with it (most subscriptions have none). */
    private readonly last: Map<string, unknown> | null;
    release: () => Promise<void> = releaseNothing;

    constructor(
        readonly kind: SubscriptionKind,
        readonly pattern: string,
        readonly filter: Filter,
        private readonly sink: Sink,
    ) {
        this.last = filter.onchange || filter.delta !== undefined ? new Map() : null;
    }

    remember(id: string, val: unknown): void {
        this.last?.set(id, val);
    }

    offer(id: string, value: ioBroker.State | ioBroker.Object | null | undefined): void {
        if (this.kind === 'object') {
            this.sink.deliver(objectBody(id, (value as ioBroker.Object | null | undefined) ?? null));
            return;
        }
        const state = (value as ioBroker.State | null | undefined) ?? null;
        const { last } = this;
        if (last) {
            if (state && this.suppressed(last, id, state.val)) {
                return;
            }
            if (state) {
                last.set(id, state.val);
            } else {
                last.delete(id);
            }
        }
        this.sink.deliver(stateBody(id, state));
    }

    private suppressed(last: Map<string, unknown>, id: string, val: unknown): boolean {
        if (!last.has(id)) {
            return false;
        }
        const previous = last.get(id);
        const { delta } = this.filter;
        if (delta !== undefined && previous !== null && typeof val === 'number' && typeof previous === 'number') {
            return Math.abs(previous - val) < delta;
        }
        return previous === val;
    }
}

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
        const old = this.subs.get(key);
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
        const all = [...this.subs.values()];
        this.subs.clear();
        await Promise.all(all.map(s => s.release()));
    }
}
