import { BruteForceGuard } from './brute-force';
import type { ChangeFeed } from '../storage/change-feed';
import type { StoragePort } from '../storage/port';
import { warnOnFailure } from '../instance/warn-on-failure';
import { adminJsonState } from '../storage/admin-json-state';

/** One failed or cleared login, as one instance tells the others. */
export interface GuardNote {
    /** Which guard: passwords, API tokens, webhook secrets. */
    guard: string;
    outcome: 'failed' | 'succeeded';
    address: string;
    user: string;
}

/** How the guards of all instances on one database hear each other. */
export interface GuardLink {
    publish(note: GuardNote): void;
}

/**
 * A BruteForceGuard whose failures (and the clearing successes) also count on every other instance
 * on the same database, so a round-robin proxy does not double the guesses and a lock holds on all.
 */
export class SharedGuard extends BruteForceGuard {
    constructor(
        readonly name: string,
        private readonly link: GuardLink,
        now?: () => number,
    ) {
        super(now);
    }

    override failed(address: string, user: string): void {
        super.failed(address, user);
        this.link.publish({ guard: this.name, outcome: 'failed', address, user });
    }

    override succeeded(address: string, user: string): boolean {
        const cleared = super.succeeded(address, user);
        if (cleared) {
            this.link.publish({ guard: this.name, outcome: 'succeeded', address, user });
        }
        return cleared;
    }

    /** A note from another instance: counted here, not told on. */
    hear(note: GuardNote): void {
        if (note.outcome === 'failed') {
            super.failed(note.address, note.user);
        } else {
            super.succeeded(note.address, note.user);
        }
    }
}

/** Every instance writes its notes to its own `<namespace>.guard` state and listens to all of them. */
const PATTERN = 'rest-api.*.guard';

function isNote(value: unknown): value is GuardNote {
    const note = value as GuardNote;
    return (
        !!note &&
        typeof note.guard === 'string' &&
        (note.outcome === 'failed' || note.outcome === 'succeeded') &&
        typeof note.address === 'string' &&
        typeof note.user === 'string'
    );
}

/**
 * The guards of this instance, linked through the states database: user names and addresses of failed
 * logins stay readable to administrators only (the state's ACL). Notes are written one by one, in order.
 */
export function linkedGuards(
    storage: StoragePort,
    feed: ChangeFeed,
    namespace: string,
): { guard(name: string): SharedGuard; start(): Promise<void> } {
    const id = `${namespace}.guard`;
    const guards = new Map<string, SharedGuard>();
    const warn = warnOnFailure(storage.log, 'Telling other instances of a login');
    const write = adminJsonState(storage, id, 'Failed logins, shared by all rest-api instances');
    const link: GuardLink = {
        publish(note) {
            void write(note).catch(warn);
        },
    };
    return {
        guard(name) {
            const guard = new SharedGuard(name, link);
            guards.set(name, guard);
            return guard;
        },
        async start() {
            await feed.listen('state', PATTERN, (from, state) => {
                if (from === id || typeof (state as ioBroker.State | null)?.val !== 'string') {
                    return;
                }
                try {
                    const note: unknown = JSON.parse((state as ioBroker.State).val as string);
                    if (isNote(note)) {
                        guards.get(note.guard)?.hear(note);
                    }
                } catch {
                    // not ours to read: only instances write here
                }
            });
        },
    };
}
