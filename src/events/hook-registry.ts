import { HttpError } from '../http/http-error';
import type { SourceFor } from './event-access';
import { UserLimits, type LimitCounts } from './user-limits';
import type { HookMethod } from './hook-delivery';
import { Hook, type HookSettings, type StoredHook } from './hooks';
import { MAX_PATTERNS } from './hub';

import { delivererOf, hookKey, newest, nextAt, recordOf, sameFilter, type HookRecord } from './hook-sharing';
import type { HookStore } from './hook-store';
import { eventIdentity } from './hooks';
import type { EventBody } from './hub';

export { stateHookStore, type HookStore } from './hook-store';

/** The other instances on the same database (src/storage/peers.ts), and how to have heard all they published. */
export interface HookCluster {
    self: string;
    peers: { any(): boolean; alive(): string[] };
    /** Resolves once every notification published before the call has arrived. */
    barrier(): Promise<void>;
}

const ALONE: HookCluster = { self: '', peers: { any: () => false, alive: () => [] }, barrier: async () => undefined };
/** How often a deliverer tells the others what its receivers confirmed (only with other instances alive). */
const PROGRESS_MS = 300;

/**
 * URL hooks by user and URL, persisted so that they survive a restart, health-checked periodically.
 * Every instance on one database holds every hook; one delivers it, the others stand by (src/events/hook-sharing.ts).
 */
export class HookRegistry {
    private readonly hooks = new Map<string, Hook>();
    /** Where each hook's newest record is: this instance's list or another's. */
    private readonly source = new Map<string, string>();
    /** Other instances' lists. */
    private readonly lists = new Map<string, { ts: number; records: Map<string, StoredHook> }>();
    /** Deleted here, kept in the own list while another list holds an older record of the hook. */
    private readonly deleted = new Map<string, StoredHook>();
    /** Confirmed events not told yet: hook key -> event identity. */
    private confirmed = new Map<string, string>();
    private saveTimer: ioBroker.Timeout | undefined;
    private progressTimer: ioBroker.Timeout | undefined;
    private checkTimer: ioBroker.Interval | undefined;
    private saving: Promise<void> = Promise.resolve();
    /** A write not started yet: later changes ride along with it. */
    private queued: Promise<void> | null = null;
    private lastSaved = '';
    /** Applying other instances' records, one after the other. */
    private work: Promise<void> = Promise.resolve();
    private problems: string[] = [];
    private closed = false;
    private readonly limits: UserLimits;
    private readonly self: string;

    constructor(
        private readonly sourceFor: SourceFor,
        private readonly settings: HookSettings,
        private readonly store: HookStore,
        limits: LimitCounts = { perUser: 1000, total: 5000 },
        private readonly cluster: HookCluster = ALONE,
    ) {
        this.limits = new UserLimits(limits, { message: 'Too many URL hooks', retryAfterS: 60 });
        this.self = cluster.self;
    }

    get(user: string, url: string): Hook | undefined {
        return this.hooks.get(hookKey(user, url));
    }

    /** With other instances alive: what they changed before this call is here once it resolves. */
    async settled(): Promise<void> {
        if (this.cluster.peers.any()) {
            await this.cluster.barrier();
            await this.work;
        }
    }

    /** A new URL is checked with `{test:true}` first, as 4.0.2 did. */
    async register(user: string, url: string, method: HookMethod, secret: string | undefined): Promise<Hook> {
        const existing = this.get(user, url);
        if (existing) {
            return existing;
        }
        this.limits.assertRoom(user, { url });
        const hook = this.create(user, url, method, secret);
        try {
            await hook.send({ test: true });
        } catch (err) {
            hook.close();
            const reason = err instanceof HttpError ? err.message : 'Cannot validate URL';
            throw new HttpError(
                err instanceof HttpError ? err.code : 'INVALID_PARAMS',
                `No valid answer from URL hook: ${reason}`,
                { context: { url } },
            );
        }
        if (this.get(user, url)) {
            // registered by a concurrent request while this one checked the URL
            hook.close();
            return this.get(user, url)!;
        }
        hook.home = this.self;
        this.add(hook);
        this.touch(hook);
        return hook;
    }

    /** Call after any change of a hook's subscriptions; a hook without any is dropped. */
    async changed(hook: Hook): Promise<void> {
        if (!hook.subscriptions.size) {
            await this.drop(hook);
            return;
        }
        if (this.hooks.get(hook.key) === hook) {
            this.touch(hook);
        }
        await this.saveSoon();
    }

    async drop(hook: Hook): Promise<void> {
        if (this.hooks.get(hook.key) === hook) {
            this.deleted.set(hook.key, {
                user: hook.user,
                url: hook.url,
                method: hook.method,
                subscriptions: [],
                at: nextAt(hook.at),
                deleted: true,
            });
            this.remove(hook.key);
        }
        hook.close();
        await hook.subscriptions.clear();
        await this.saveSoon();
    }

    /** Drops every hook of one owner, e.g. a revoked API token's (src/access/owner.ts). */
    async dropOwner(owner: string): Promise<void> {
        for (const hook of [...this.hooks.values()].filter(h => h.user === owner)) {
            await this.drop(hook);
        }
    }

    /** Loads every instance's stored hooks; answers what could not be subscribed again, for the log. */
    async restore(): Promise<string[]> {
        // listening first, then reading: a change between the two is not missed
        await this.store.watch({
            list: (from, hooks, ts) => this.heard(from, hooks, ts),
            progress: (_from, confirmed) =>
                Object.entries(confirmed).forEach(([key, identity]) => this.hooks.get(key)?.confirmed(identity)),
            alive: () => !this.closed && [...this.hooks.values()].forEach(hook => this.assess(hook)),
        });
        const keys = new Set<string>();
        for (const [from, { hooks, ts }] of await this.store.load()) {
            if (from !== this.self) {
                this.keep(from, hooks, ts).forEach(key => keys.add(key));
                continue;
            }
            for (const stored of hooks) {
                const key = hookKey(stored.user, stored.url);
                keys.add(key);
                if (stored.deleted) {
                    this.deleted.set(key, stored);
                    continue;
                }
                // written by a version before instances shared hooks: no time, delivered here
                const hook = this.create(stored.user, stored.url, stored.method, stored.secret);
                hook.at = stored.at ?? 0;
                hook.home = stored.home ?? this.self;
                this.add(hook);
                this.source.set(key, this.self);
                this.assess(hook);
                await this.follow(hook, stored);
            }
        }
        keys.forEach(key => this.reconcile(key));
        await this.work;
        const problems = this.problems;
        this.problems = [];
        return problems;
    }

    startChecks(intervalMs: number): void {
        if (intervalMs > 0) {
            this.checkTimer = this.settings.timers.setInterval(
                () => [...this.hooks.values()].forEach(hook => hook.delivering && void hook.check()),
                intervalMs,
            );
        }
    }

    get size(): number {
        return this.hooks.size;
    }

    /**
     * Alone, tells every receiver `{disconnect:true}`; with other instances alive they deliver on, so
     * the receivers hear nothing. The subscriptions stay stored for the next start.
     */
    async close(): Promise<void> {
        this.closed = true;
        this.settings.timers.clearInterval(this.checkTimer);
        await this.flush();
        await this.flushProgress();
        const alone = !this.cluster.peers.any();
        const hooks = [...this.hooks.values()];
        this.hooks.clear();
        this.limits.clear();
        await Promise.all(
            hooks
                .filter(hook => alone && hook.delivering)
                .map(hook => hook.send({ disconnect: true }).catch(() => undefined)),
        );
        for (const hook of hooks) {
            hook.close();
            await hook.subscriptions.clear();
        }
    }

    private create(user: string, url: string, method: HookMethod, secret: string | undefined): Hook {
        return new Hook(
            user,
            url,
            method,
            secret,
            this.sourceFor(user),
            this.settings,
            dead => void this.drop(dead),
            (hook, event) => this.sent(hook, event),
        );
    }

    private add(hook: Hook): void {
        if (!this.hooks.has(hook.key)) {
            this.limits.opened(hook.user);
        }
        this.hooks.set(hook.key, hook);
        this.deleted.delete(hook.key);
    }

    /** Gone from this instance's view, without telling the others (they decided it, or told it already). */
    private remove(key: string): Hook | undefined {
        const hook = this.hooks.get(key);
        if (hook) {
            this.hooks.delete(key);
            this.source.delete(key);
            this.limits.closed(hook.user);
        }
        return hook;
    }

    /** Changed here: this instance's record is now the newest. */
    private touch(hook: Hook): void {
        hook.at = nextAt(
            Math.max(hook.at, ...[...this.lists.values()].map(list => list.records.get(hook.key)?.at ?? 0)),
        );
        this.source.set(hook.key, this.self);
    }

    /** Another instance's list; answers the keys it had or has. */
    private keep(from: string, hooks: StoredHook[], ts: number): Set<string> {
        const old = this.lists.get(from);
        const keys = new Set(old?.records.keys());
        const records = new Map<string, StoredHook>();
        for (const hook of Array.isArray(hooks) ? hooks : []) {
            if (hook && typeof hook.user === 'string' && typeof hook.url === 'string') {
                const key = hookKey(hook.user, hook.url);
                records.set(key, { ...hook, home: hook.home ?? from });
                keys.add(key);
            }
        }
        this.lists.set(from, { ts, records });
        return keys;
    }

    private heard(from: string, hooks: StoredHook[], ts: number): void {
        if (this.closed || (this.lists.get(from)?.ts ?? -1) > ts) {
            return;
        }
        this.keep(from, hooks, ts).forEach(key => this.reconcile(key));
        if (this.deleted.size) {
            // a deletion told here may no longer need keeping
            void this.saveSoon();
        }
    }

    /** Follows the newest record of one hook, wherever it is. */
    private reconcile(key: string): void {
        const records: HookRecord[] = [...this.lists].flatMap(([from, list]) =>
            list.records.has(key) ? [{ from, hook: list.records.get(key)! }] : [],
        );
        const live = this.hooks.get(key);
        if (live && this.source.get(key) === this.self) {
            records.push({ from: this.self, hook: recordOf(live) });
        } else if (this.deleted.has(key)) {
            records.push({ from: this.self, hook: this.deleted.get(key)! });
        }
        const winner = newest(records);
        if (winner?.from === this.self) {
            return;
        }
        const superseded = this.source.get(key) === this.self || this.deleted.delete(key);
        this.work = this.work.then(() => this.apply(key, winner?.hook)).catch(() => undefined);
        if (superseded) {
            void this.saveSoon();
        }
    }

    private async apply(key: string, record: StoredHook | undefined): Promise<void> {
        let hook = this.hooks.get(key);
        if (hook && (!record || record.deleted || hook.method !== record.method || hook.secret !== record.secret)) {
            this.remove(key);
            hook.close();
            await hook.subscriptions.clear();
            hook = undefined;
        }
        if (!record || record.deleted || this.closed) {
            return;
        }
        if (!hook) {
            hook = this.create(record.user, record.url, record.method, record.secret);
            this.add(hook);
        }
        this.source.set(key, 'elsewhere');
        hook.at = record.at ?? 0;
        hook.home = record.home ?? '';
        // standing by before the first event can arrive
        this.assess(hook);
        await this.follow(hook, record);
    }

    /** Subscribes what the record names and nothing else. */
    private async follow(hook: Hook, record: StoredHook): Promise<void> {
        // a list stored by a version without the bound keeps its first MAX_PATTERNS
        const wanted = new Map(
            (Array.isArray(record.subscriptions) ? record.subscriptions : [])
                .slice(0, MAX_PATTERNS)
                .map(sub => [`${sub.kind}:${sub.pattern}`, sub]),
        );
        for (const have of hook.subscriptions.list()) {
            const want = wanted.get(`${have.kind}:${have.pattern}`);
            if (want && sameFilter(want.filter ?? {}, have.filter)) {
                wanted.delete(`${have.kind}:${have.pattern}`);
            } else if (!want) {
                await hook.subscriptions.remove(have.kind, have.pattern);
            }
        }
        for (const { kind, pattern, filter } of wanted.values()) {
            // one stored before patterns were bounded is dropped, the hook stays
            await hook.subscriptions
                .add(kind, pattern, filter ?? {})
                .catch((err: Error) =>
                    this.problems.push(`URL hook ${record.url}: subscription ${pattern} dropped: ${err.message}`),
                );
        }
    }

    /** Delivers here or stands by; taking over from a dead home is written down for all. */
    private assess(hook: Hook): void {
        const home = hook.home || this.self;
        if (delivererOf(home, this.self, this.cluster.peers.alive()) !== this.self) {
            hook.standBy();
            return;
        }
        if (home !== this.self) {
            hook.home = this.self;
            this.touch(hook);
            void this.saveSoon();
        }
        hook.takeOver();
    }

    private sent(hook: Hook, event: EventBody): void {
        if (!this.cluster.peers.any()) {
            return;
        }
        this.confirmed.set(hook.key, eventIdentity(event));
        this.progressTimer ??= this.settings.timers.setTimeout(() => void this.flushProgress(), PROGRESS_MS);
    }

    private async flushProgress(): Promise<void> {
        this.settings.timers.clearTimeout(this.progressTimer);
        this.progressTimer = undefined;
        if (this.confirmed.size) {
            const confirmed = Object.fromEntries(this.confirmed);
            this.confirmed = new Map();
            await this.store.saveProgress(confirmed).catch(() => undefined);
        }
    }

    /** Alone: batched; with other instances alive: written before the request is answered, so they see it next. */
    private saveSoon(): Promise<void> {
        if (this.cluster.peers.any()) {
            return this.flush();
        }
        this.saveTimer ??= this.settings.timers.setTimeout(() => void this.flush(), 200);
        return Promise.resolve();
    }

    private flush(): Promise<void> {
        this.settings.timers.clearTimeout(this.saveTimer);
        this.saveTimer = undefined;
        if (!this.queued) {
            this.queued = this.saving.then(async () => {
                this.queued = null;
                const own = this.ownList();
                const text = JSON.stringify(own);
                if (text !== this.lastSaved) {
                    this.lastSaved = text;
                    await this.store.save(own).catch(() => (this.lastSaved = ''));
                }
            });
            this.saving = this.queued;
        }
        return this.queued;
    }

    /** The hooks whose newest record is this instance's, and the deletions others still hold older records of. */
    private ownList(): StoredHook[] {
        const own = [...this.hooks.values()].filter(hook => this.source.get(hook.key) === this.self).map(recordOf);
        for (const [key, deleted] of this.deleted) {
            const older = [...this.lists.values()].some(list => {
                const record = list.records.get(key);
                return record && !record.deleted && (record.at ?? 0) < (deleted.at ?? 0);
            });
            if (older) {
                own.push(deleted);
            } else {
                this.deleted.delete(key);
            }
        }
        return own;
    }
}
