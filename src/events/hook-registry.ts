import { HttpError } from '../http/http-error';
import type { SourceFor } from './event-access';
import { UserLimits, type LimitCounts } from './user-limits';
import type { HookMethod } from './hook-delivery';
import { Hook, type HookSettings, type StoredHook } from './hooks';
import { MAX_PATTERNS } from './hub';
import type { StoragePort } from '../storage/port';

export interface HookStore {
    load(): Promise<StoredHook[]>;
    save(hooks: StoredHook[]): Promise<void>;
}

/** URL hooks by user and URL, persisted so that they survive a restart, health-checked periodically. */
export class HookRegistry {
    private readonly hooks = new Map<string, Hook>();
    private saveTimer: NodeJS.Timeout | null = null;
    private checkTimer: NodeJS.Timeout | null = null;

    constructor(
        private readonly sourceFor: SourceFor,
        private readonly settings: HookSettings,
        private readonly store: HookStore,
        limits: LimitCounts = { perUser: 1000, total: 5000 },
    ) {
        this.limits = new UserLimits(limits, { message: 'Too many URL hooks', retryAfterS: 60 });
    }

    private readonly limits: UserLimits;

    private add(hook: Hook): void {
        const key = this.key(hook.user, hook.url);
        if (!this.hooks.has(key)) {
            this.limits.opened(hook.user);
        }
        this.hooks.set(key, hook);
    }

    private key(user: string, url: string): string {
        return `${user}\u0000${url}`;
    }

    get(user: string, url: string): Hook | undefined {
        return this.hooks.get(this.key(user, url));
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
            throw new HttpError(err instanceof HttpError ? err.code : 'INVALID_PARAMS', `No valid answer from URL hook: ${reason}`, { context: { url } });
        }
        if (this.get(user, url)) {
            // registered by a concurrent request while this one checked the URL
            hook.close();
            return this.get(user, url)!;
        }
        this.add(hook);
        return hook;
    }

    /** Call after any change of a hook's subscriptions; a hook without any is dropped. */
    async changed(hook: Hook): Promise<void> {
        if (!hook.subscriptions.size) {
            await this.drop(hook);
        }
        this.saveSoon();
    }

    async drop(hook: Hook): Promise<void> {
        if (this.hooks.get(this.key(hook.user, hook.url)) === hook) {
            this.hooks.delete(this.key(hook.user, hook.url));
            this.limits.closed(hook.user);
        }
        hook.close();
        await hook.subscriptions.clear();
        this.saveSoon();
    }

    /** Drops every hook of one owner, e.g. a revoked API token's (src/access/owner.ts). */
    async dropOwner(owner: string): Promise<void> {
        for (const hook of [...this.hooks.values()].filter(h => h.user === owner)) {
            await this.drop(hook);
        }
    }

    /** Loads the stored hooks; answers what could not be subscribed again, for the log. */
    async restore(): Promise<string[]> {
        const dropped: string[] = [];
        for (const stored of await this.store.load()) {
            const hook = this.create(stored.user, stored.url, stored.method, stored.secret);
            this.add(hook);
            // a list stored by a version without the bound keeps its first MAX_PATTERNS; one stored before
            // patterns were bounded is dropped, the hook stays
            for (const { kind, pattern, filter } of stored.subscriptions.slice(0, MAX_PATTERNS)) {
                await hook.subscriptions.add(kind, pattern, filter).catch((err: Error) => dropped.push(`URL hook ${stored.url}: subscription ${pattern} dropped: ${err.message}`));
            }
        }
        return dropped;
    }

    startChecks(intervalMs: number): void {
        if (intervalMs > 0) {
            this.checkTimer = setInterval(() => [...this.hooks.values()].forEach(hook => void hook.check()), intervalMs);
            this.checkTimer.unref();
        }
    }

    get size(): number {
        return this.hooks.size;
    }

    /** Tells every receiver `{disconnect:true}`; the subscriptions stay stored for the next start. */
    async close(): Promise<void> {
        if (this.checkTimer) {
            clearInterval(this.checkTimer);
        }
        await this.flush();
        const hooks = [...this.hooks.values()];
        this.hooks.clear();
        this.limits.clear();
        await Promise.all(hooks.map(hook => hook.send({ disconnect: true }).catch(() => undefined)));
        for (const hook of hooks) {
            hook.close();
            await hook.subscriptions.clear();
        }
    }

    private create(user: string, url: string, method: HookMethod, secret: string | undefined): Hook {
        return new Hook(user, url, method, secret, this.sourceFor(user), this.settings, dead => void this.drop(dead));
    }

    private saveSoon(): void {
        this.saveTimer ??= setTimeout(() => void this.flush(), 200);
    }

    private async flush(): Promise<void> {
        if (this.saveTimer) {
            clearTimeout(this.saveTimer);
            this.saveTimer = null;
        }
        const stored: StoredHook[] = [...this.hooks.values()].map(hook => ({
            user: hook.user,
            url: hook.url,
            method: hook.method,
            ...(hook.secret ? { secret: hook.secret } : {}),
            subscriptions: hook.subscriptions.list(),
        }));
        await this.store.save(stored).catch(() => undefined);
    }
}

/** Hooks are kept in the instance's own state `hooks`, readable by administrators only. */
/** Kept in the state `<namespace>.hooks` (foreign ids: inside the web adapter, `adapter` is web's). */
export function stateHookStore(storage: StoragePort, namespace: string): HookStore {
    const id = `${namespace}.hooks`;
    return {
        async load() {
            const state = await storage.getForeignStateAsync(id).catch(() => null);
            try {
                return typeof state?.val === 'string' ? (JSON.parse(state.val) as StoredHook[]) : [];
            } catch {
                return [];
            }
        },
        async save(hooks) {
            await storage.setForeignObjectNotExistsAsync(id, {
                type: 'state',
                common: { name: 'URL hook subscriptions', type: 'string', role: 'json', read: true, write: false },
                native: {},
                acl: { owner: 'system.user.admin', ownerGroup: 'system.group.administrator', object: 0x600, state: 0x600 },
            } as ioBroker.SettableObject);
            await storage.setForeignStateAsync(id, JSON.stringify(hooks), true);
        },
    };
}
