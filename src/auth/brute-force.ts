import { HttpError } from '../http-error';

const MINUTE = 60_000;
const MAX_ENTRIES = 10_000;
const FORGET_AFTER_MS = 60 * MINUTE;

interface Failures {
    count: number;
    last: number;
    lockedUntil: number;
}

/** 4.0.2's growing lock-out, counted from the fifth failure: 1, 3, 10, then 60 minutes. */
export function lockDuration(count: number): number {
    if (count < 5) {
        return 0;
    }
    if (count < 7) {
        return MINUTE;
    }
    if (count < 10) {
        return 3 * MINUTE;
    }
    return count < 15 ? 10 * MINUTE : 60 * MINUTE;
}

/**
 * Damps password guessing per client address and per user name. A locked user name still lets
 * addresses that never failed for it try, so the owner logging in from elsewhere is not locked out.
 */
export class BruteForceGuard {
    private readonly entries = new Map<string, Failures>();

    constructor(private readonly now: () => number = Date.now) {}

    /** Throws 429 with Retry-After while the address, or this user from this address, is locked. */
    assertAllowed(address: string, user: string): void {
        const until = Math.max(this.lockedUntil(`ip:${address}`), this.userLockFor(address, user));
        if (until > this.now()) {
            const seconds = Math.ceil((until - this.now()) / 1000);
            throw new HttpError('TOO_MANY_REQUESTS', `Too many failed logins; try again in ${seconds} s`, {}, undefined, { 'Retry-After': String(seconds) });
        }
    }

    failed(address: string, user: string): void {
        this.bump(`ip:${address}`, 2);
        this.bump(`user:${user}`, 1);
        this.bump(`pair:${user}|${address}`, 1);
    }

    /** Clears this address only: the owner logging in must not unlock the guesser elsewhere. */
    succeeded(address: string, user: string): void {
        this.entries.delete(`ip:${address}`);
        this.entries.delete(`pair:${user}|${address}`);
    }

    private userLockFor(address: string, user: string): number {
        return this.entries.has(`pair:${user}|${address}`) ? this.lockedUntil(`user:${user}`) : 0;
    }

    private lockedUntil(key: string): number {
        const entry = this.entries.get(key);
        if (entry && this.now() - entry.last > FORGET_AFTER_MS) {
            this.entries.delete(key);
            return 0;
        }
        return entry?.lockedUntil ?? 0;
    }

    /** `tolerance` > 1: an address may fail more often than one user name, several people may share it. */
    private bump(key: string, tolerance: number): void {
        const entry = this.entries.get(key) ?? { count: 0, last: 0, lockedUntil: 0 };
        entry.count++;
        entry.last = this.now();
        const duration = lockDuration(Math.floor(entry.count / tolerance));
        entry.lockedUntil = duration ? entry.last + duration : 0;
        this.entries.delete(key);
        this.entries.set(key, entry);
        if (this.entries.size > MAX_ENTRIES) {
            // the oldest entry goes first: Map keeps insertion order and bump re-inserts
            this.entries.delete(this.entries.keys().next().value!);
        }
    }
}
