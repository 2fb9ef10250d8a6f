import { createHash, randomBytes } from 'node:crypto';
import { HttpError } from '../http/http-error';
import { userKey, type BruteForceGuard } from './brute-force';
import type { StoragePort } from '../storage/port';

const CACHE_TTL_MS = 60_000;
const MAX_CACHED = 1000;

/**
 * Checks user name and password with js-controller (disabled users refused, display names resolved)
 * and remembers a success briefly, keyed by a salted hash of both, so Basic auth on every request
 * does not pay for pbkdf2 each time. Any change of a user object empties the cache.
 */
export class CredentialChecker {
    private readonly cache = new Map<string, { user: string; expires: number }>();
    private readonly salt = randomBytes(16);
    /** Typed names (display names too) → the user id js-controller resolved them to. */
    private readonly ids = new Map<string, string>();

    constructor(
        private readonly storage: StoragePort,
        private readonly guard: BruteForceGuard,
    ) {}

    invalidate(): void {
        this.cache.clear();
        this.ids.clear();
    }

    private remember(name: string, id: string): void {
        if (this.ids.size >= MAX_CACHED) {
            this.ids.delete(this.ids.keys().next().value!);
        }
        this.ids.set(name, id);
    }

    /** Resolves with the user id (`system.user.x`); throws 401 or 429. */
    async check(name: string, password: string, address: string): Promise<string> {
        // damped by the user the name stands for: `Admin`, `system.user.admin` and a display name are one user
        const known = this.ids.get(name) ?? userKey(name);
        // a locked address stays locked, even for a password that is right and cached
        this.guard.assertAllowed(address, known);
        const key = createHash('sha256').update(this.salt).update(name).update('\0').update(password).digest('base64');
        const cached = this.cache.get(key);
        if (cached && cached.expires > Date.now()) {
            // a login from a new address counts even when its check is remembered: the address becomes the owner's
            this.guard.succeeded(address, userKey(cached.user));
            return cached.user;
        }
        const [ok, user] = await new Promise<[boolean, string]>(resolve =>
            this.storage.checkPassword(name, password, {}, (success, id) => resolve([!!success, id])),
        );
        this.remember(name, userKey(String(user)));
        if (!ok) {
            this.guard.failed(address, userKey(String(user)));
            throw new HttpError('UNAUTHORIZED', `Invalid password or user name: ${user}`);
        }
        this.guard.succeeded(address, userKey(user));
        if (this.cache.size >= MAX_CACHED) {
            this.cache.clear();
        }
        this.cache.set(key, { user, expires: Date.now() + CACHE_TTL_MS });
        return user;
    }
}
