import type { ChangeKind } from '../storage/change-feed';

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
    /** Listeners in the change feed it holds: one for a pattern, one per state for a device, room or function. */
    listeners = 1;

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
