/*
 * How the rest-api instances on one database share URL hooks (docs/en/events.md, "Several instances").
 * Each instance writes only its own list; a hook's record is the newest among all lists, so a change
 * made on any instance wins over older ones everywhere and no write can undo another's. Each hook has
 * one deliverer, chosen alike on every instance from the same `alive` states.
 */
import type { Filter } from './hub';
import type { Hook, StoredHook } from './hooks';

export interface HookRecord {
    /** The instance whose list holds it. */
    from: string;
    hook: StoredHook;
}

export function hookKey(user: string, url: string): string {
    return `${user}\u0000${url}`;
}

/** The newest record; on a tie the greater namespace, so every instance picks the same. */
export function newest(records: HookRecord[]): HookRecord | undefined {
    let best: HookRecord | undefined;
    for (const record of records) {
        const at = record.hook.at ?? 0;
        const bestAt = best?.hook.at ?? 0;
        if (!best || at > bestAt || (at === bestAt && record.from > best.from)) {
            best = record;
        }
    }
    return best;
}

/** The hook's home while it lives, else the first living instance by name. */
export function delivererOf(home: string, self: string, others: string[]): string {
    if (home === self || others.includes(home)) {
        return home;
    }
    return [self, ...others].sort()[0];
}

/** A hook as this instance records it: `at` moves past every record of it seen so far. */
export function recordOf(hook: Hook): StoredHook {
    return {
        user: hook.user,
        url: hook.url,
        method: hook.method,
        ...(hook.secret ? { secret: hook.secret } : {}),
        subscriptions: hook.subscriptions.list(),
        at: hook.at,
        home: hook.home,
    };
}

export function nextAt(previous: number): number {
    return Math.max(Date.now(), previous + 1);
}

export function sameFilter(a: Filter, b: Filter): boolean {
    return a.onchange === b.onchange && a.delta === b.delta;
}
