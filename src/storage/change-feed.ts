import { warnOnFailure } from '../instance/warn-on-failure';
import { safePattern, patternToRegExp, isPattern } from '../access/patterns';

export type ChangeKind = 'state' | 'object';
export type ChangeListener = (id: string, value: ioBroker.State | ioBroker.Object | null | undefined) => void;

interface Subscription {
    pattern: string;
    regExp: RegExp | null;
    listeners: Set<ChangeListener>;
    /** Settles once js-controller confirmed the subscription. */
    ready: Promise<void>;
}

export interface SubscribePort {
    /** Where a failed unsubscribe is told (the port's log). */
    log?: Pick<ioBroker.Logger, 'warn'>;
    subscribeForeignStatesAsync(pattern: string): Promise<void>;
    unsubscribeForeignStatesAsync(pattern: string): Promise<void>;
    subscribeForeignObjectsAsync(pattern: string): Promise<void>;
    unsubscribeForeignObjectsAsync(pattern: string): Promise<void>;
}

function notify(sub: Subscription, id: string, value: ioBroker.State | ioBroker.Object | null | undefined): void {
    // a copy: a listener may release itself (or another) while being told
    for (const listener of [...sub.listeners]) {
        listener(id, value);
    }
}

/**
 * One place that subscribes at js-controller, reference-counted per pattern, and fans every
 * change out to the listeners whose pattern matches. One listener leaving never silences another.
 */
export class ChangeFeed {
    private readonly subs: Record<ChangeKind, Map<string, Subscription>> = { state: new Map(), object: new Map() };
    /** The subscriptions with wildcards, beside all of them: a change is matched by a lookup of its id plus only these (the caches hold thousands of single ids). */
    private readonly wildcards: Record<ChangeKind, Set<Subscription>> = { state: new Set(), object: new Set() };

    constructor(private readonly port: SubscribePort) {}

    /** Resolves once events for `pattern` flow; the returned function releases the listener. */
    async listen(kind: ChangeKind, given: string, listener: ChangeListener): Promise<() => Promise<void>> {
        // js-controller's DB servers stop on a subscription with a pattern they cannot compile or match fast
        const pattern = safePattern('pattern', given);
        const map = this.subs[kind];
        let sub = map.get(pattern);
        if (!sub) {
            const ready =
                kind === 'state'
                    ? this.port.subscribeForeignStatesAsync(pattern)
                    : this.port.subscribeForeignObjectsAsync(pattern);
            sub = {
                pattern,
                regExp: isPattern(pattern) ? patternToRegExp(pattern) : null,
                listeners: new Set(),
                ready,
            };
            map.set(pattern, sub);
            if (sub.regExp) {
                this.wildcards[kind].add(sub);
            }
        }
        sub.listeners.add(listener);
        const current = sub;
        try {
            await current.ready;
        } catch (err) {
            await this.release(kind, current, listener);
            throw err;
        }
        let released = false;
        return async () => {
            if (!released) {
                released = true;
                await this.release(kind, current, listener);
            }
        };
    }

    emit(kind: ChangeKind, id: string, value: ioBroker.State | ioBroker.Object | null | undefined): void {
        const exact = this.subs[kind].get(id);
        if (exact && !exact.regExp) {
            notify(exact, id, value);
        }
        for (const sub of this.wildcards[kind]) {
            if (sub.regExp!.test(id)) {
                notify(sub, id, value);
            }
        }
    }

    /** Number of patterns currently subscribed at js-controller (for tests and diagnostics). */
    count(kind: ChangeKind): number {
        return this.subs[kind].size;
    }

    private async release(kind: ChangeKind, sub: Subscription, listener: ChangeListener): Promise<void> {
        sub.listeners.delete(listener);
        if (sub.listeners.size || this.subs[kind].get(sub.pattern) !== sub) {
            return;
        }
        this.subs[kind].delete(sub.pattern);
        this.wildcards[kind].delete(sub);
        await (
            kind === 'state'
                ? this.port.unsubscribeForeignStatesAsync(sub.pattern)
                : this.port.unsubscribeForeignObjectsAsync(sub.pattern)
        ).catch(
            err =>
                this.port.log && warnOnFailure(this.port.log, `Unsubscribing the ${kind} pattern ${sub.pattern}`)(err),
        );
    }
}
