import { isIPv6 } from 'node:net';
import { HttpError } from '../http/http-error';

const MINUTE = 60_000;
const MAX_ENTRIES = 10_000;
const FORGET_AFTER_MS = 60 * MINUTE;
/** The longest a user name's lock holds a network that never failed for it. */
const NAME_LOCK_MAX_MS = MINUTE;
/** How long a network where a user logged in stays exempt from that user name's lock. */
const TRUST_MS = 30 * 24 * 60 * MINUTE;

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

/** The eight 16-bit groups of an IPv6 address (an embedded IPv4 tail as two), or undefined. */
function ipv6Groups(address: string): number[] | undefined {
    let text = address;
    const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
    if (dotted) {
        const [a, b, c, d] = dotted.slice(1).map(Number);
        text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
    }
    const [head, tail] = text.split('::');
    const left = head ? head.split(':') : [];
    const right = tail === undefined ? [] : tail ? tail.split(':') : [];
    const missing = 8 - left.length - right.length;
    if (missing < 0 || (tail === undefined && missing !== 0)) {
        return undefined;
    }
    return [...left, ...Array<string>(missing).fill('0'), ...right].map(group => parseInt(group, 16));
}

/** js-controller's FORBIDDEN_CHARS: checkPassword folds each run of them into `_`. */
const FORBIDDEN_CHARS = /[^._\-/ :!#$%&()+=@^{}|~\p{Ll}\p{Lu}\p{Nd}]+/gu;

/**
 * The user id js-controller's checkPassword tries for a typed name (display names aside), lower-cased:
 * spellings of one name (`Admin`, `ad*min` for `ad_min`) count as one, so they cannot evade its lock.
 */
export function userKey(name: string): string {
    if (name.startsWith('system.user.')) {
        return name.toLowerCase();
    }
    return `system.user.${name.replace(FORBIDDEN_CHARS, '_').replace(/\s/g, '_').replace(/\./g, '_').toLowerCase()}`;
}

/**
 * The network an address guesses from: IPv4 (also IPv4-mapped IPv6) as it is, IPv6 as its /64, the
 * block one subscriber gets and can rotate through freely.
 */
export function networkOf(address: string): string {
    const plain = address.replace(/%.*$/, '');
    if (!isIPv6(plain)) {
        return plain;
    }
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(plain);
    if (mapped) {
        return mapped[1];
    }
    const groups = ipv6Groups(plain);
    return groups
        ? `${groups
              .slice(0, 4)
              .map(g => g.toString(16))
              .join(':')}::/64`
        : plain;
}

/**
 * Damps password guessing per network (IPv4 address, IPv6 /64) and per user name across networks.
 * A network that failed for a name gets the name's whole growing lock; a network where that user
 * logged in before is not held up by others' failures; any other network is held at most
 * NAME_LOCK_MAX_MS per name.
 */
export class BruteForceGuard {
    private readonly entries = new Map<string, Failures>();
    /** `user|network` → when that user last logged in from there. */
    private readonly trusted = new Map<string, number>();

    constructor(private readonly now: () => number = Date.now) {}

    /** Throws 429 with Retry-After while the network, or this user name for this network, is locked. */
    assertAllowed(address: string, user: string): void {
        const network = networkOf(address);
        const until = Math.max(this.lockedUntil(`ip:${network}`), this.userLockFor(network, user));
        if (until > this.now()) {
            const seconds = Math.ceil((until - this.now()) / 1000);
            throw new HttpError('TOO_MANY_REQUESTS', `Too many failed logins; try again in ${seconds} s`, {
                headers: { 'Retry-After': String(seconds) },
            });
        }
    }

    failed(address: string, user: string): void {
        const network = networkOf(address);
        this.bump(`ip:${network}`, 2);
        this.bump(`user:${user}`, 1);
        this.bump(`pair:${user}|${network}`, 1);
    }

    /**
     * Clears this network only: the owner logging in must not unlock the guesser elsewhere. True when
     * it cleared failures (what other instances need to hear; the trust note stays local).
     */
    succeeded(address: string, user: string): boolean {
        const network = networkOf(address);
        const cleared = this.entries.delete(`ip:${network}`);
        const clearedPair = this.entries.delete(`pair:${user}|${network}`);
        const key = `${user}|${network}`;
        this.trusted.delete(key);
        this.trusted.set(key, this.now());
        if (this.trusted.size > MAX_ENTRIES) {
            this.trusted.delete(this.trusted.keys().next().value!);
        }
        return cleared || clearedPair;
    }

    private userLockFor(network: string, user: string): number {
        const until = this.lockedUntil(`user:${user}`);
        if (!until || this.entries.has(`pair:${user}|${network}`)) {
            return until;
        }
        const trustedAt = this.trusted.get(`${user}|${network}`);
        if (trustedAt !== undefined && this.now() - trustedAt < TRUST_MS) {
            return 0;
        }
        // trade-off: guessing from rotating addresses slows to one try a minute, yet a guesser keeps the owner off new networks a minute at most
        return Math.min(until, this.entries.get(`user:${user}`)!.last + NAME_LOCK_MAX_MS);
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
