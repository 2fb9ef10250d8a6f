import { createHash } from 'node:crypto';
import type { EventBody } from './hub';
import { deadline, type Timers } from '../instance/timers';
import { EndedRecords } from './sse-log-ended';

/** How long a channel's events stay readable for a resume on any instance, after they happened. */
export const LOG_WINDOW_MS = 10 * 60_000;
/**
 * A channel's record, all of it, is at most this size: its newest events that fit (the replay buffer in
 * memory holds more). An event that does not fit is left out and counted as gone, so a resume from
 * before it gets an overflow.
 */
export const LOG_MAX_BYTES = 64 * 1024;
/** At most one write per channel in this time: a busy channel costs the database a bounded rate. */
const MIN_WRITE_INTERVAL_MS = 500;
/** The part of the states database the log lives in: js-controller's sessions (a value with a lifetime). */
export interface LogStore {
    setSession(id: string, expireS: number, value: unknown, callback?: (err?: Error | null) => void): void;
    getSession(id: string, callback: (value: unknown) => void): void;
    destroySession(id: string, callback?: (err?: Error | null) => void): void;
}

export interface LogEntry {
    seq: number;
    /** When it was delivered (ms): entries older than the window are not kept. */
    at: number;
    event: EventBody;
}

/** What every instance on the database reads of a channel: whose, which patterns, and its recent events. */
export interface LogRecord {
    /** The channel's user and patterns, digested (src/events/sse-log.ts logKey): a long pattern list costs no room. */
    key: string;
    /** The instance that kept it (`rest-api.0`). */
    by: string;
    /** Events up to this sequence number are no longer in `entries`. */
    floor: number;
    entries: LogEntry[];
    /** Set once the channel ended (its grace ran out, or its instance stopped): nothing was logged after. */
    closedAt?: number;
}

/** A channel as the log sees it. */
export interface LoggedChannel {
    readonly origin: string;
    readonly key: string;
    /** Whose it is: ended records are bounded per user. */
    readonly user: string;
    /** The replay buffer: floor and entries, oldest first. */
    snapshot(): { floor: number; entries: LogEntry[] };
}

function isEntry(value: unknown): value is LogEntry {
    const entry = value as LogEntry | null;
    const event = entry?.event as Record<string, unknown> | undefined;
    return (
        typeof entry?.seq === 'number' &&
        typeof entry.at === 'number' &&
        !!event &&
        typeof event.id === 'string' &&
        ('state' in event || 'obj' in event)
    );
}

/** A record as this adapter writes it; anything else in the store is ignored. */
function isRecord(value: unknown): value is LogRecord {
    const record = value as LogRecord | null;
    return (
        !!record &&
        typeof record.key === 'string' &&
        typeof record.by === 'string' &&
        typeof record.floor === 'number' &&
        Array.isArray(record.entries) &&
        record.entries.every(isEntry)
    );
}

/**
 * Each event-stream channel's replay buffer, kept in the states database under its origin (48 random
 * bits that only the ids its own client got name), so that a client reconnecting to another instance
 * on the same database, or to this one after a restart, resumes exactly where it was.
 */
export class SseLog {
    /** Per channel: a write under way, and whether another must follow it (events came meanwhile). */
    private readonly writing = new Map<string, { done: Promise<void>; again: boolean }>();
    private readonly endedRecords = new EndedRecords();

    constructor(
        private readonly store: LogStore,
        /** This instance's namespace. */
        readonly self: string,
        private readonly timers: Timers,
    ) {}

    /**
     * A channel delivered an event: its record is written at once, or right after the write under
     * way (which then carries every event that came meanwhile), so a resume elsewhere finds it soon.
     */
    changed(channel: LoggedChannel): void {
        const under = this.writing.get(channel.origin);
        if (under) {
            under.again = true;
            return;
        }
        const state = { done: Promise.resolve(), again: false };
        this.writing.set(channel.origin, state);
        state.done = (async () => {
            do {
                state.again = false;
                await this.write(channel);
                // events that come meanwhile wait for one write after the interval
                await new Promise<void>(resolve => deadline(this.timers, MIN_WRITE_INTERVAL_MS, resolve));
            } while (state.again);
            this.writing.delete(channel.origin);
        })();
    }

    /** The channel ended: its record says so, so a resume knows nothing was logged after. */
    async ended(channel: LoggedChannel): Promise<void> {
        await this.writing.get(channel.origin)?.done;
        // a channel that logged nothing leaves no record behind (one whose events were all too large to keep did)
        const { floor, entries } = channel.snapshot();
        if (!entries.length && !floor) {
            return;
        }
        const { bytes, expireS } = await this.write(channel, Date.now());
        const gone = this.endedRecords.add({
            origin: channel.origin,
            user: channel.user,
            bytes,
            expires: Date.now() + expireS * 1000,
        });
        await Promise.all(
            gone.map(
                origin => new Promise<void>(resolve => this.store.destroySession(sessionKey(origin), () => resolve())),
            ),
        );
    }

    read(origin: string): Promise<LogRecord | null> {
        return new Promise(resolve =>
            this.store.getSession(sessionKey(origin), value => resolve(isRecord(value) ? value : null)),
        );
    }

    private write(channel: LoggedChannel, closedAt?: number): Promise<{ bytes: number; expireS: number }> {
        const { floor, entries } = channel.snapshot();
        const now = Date.now();
        const envelope = {
            key: logKey(channel.key),
            by: this.self,
            // the largest floor it can have: the size counted is never below the size written
            floor: entries.at(-1)?.seq ?? floor,
            entries: [] as LogEntry[],
            ...(closedAt === undefined ? {} : { closedAt }),
        };
        let bytes = Buffer.byteLength(JSON.stringify(envelope));
        const kept: LogEntry[] = [];
        // the newest first, within the window and the size; one that does not fit ends the record
        for (let i = entries.length - 1; i >= 0 && entries[i].at >= now - LOG_WINDOW_MS; i--) {
            const size = Buffer.byteLength(JSON.stringify(entries[i])) + 1;
            if (bytes + size > LOG_MAX_BYTES) {
                break;
            }
            bytes += size;
            kept.unshift(entries[i]);
        }
        // gone once its newest event is older than the window
        const newest = entries.at(-1)?.at ?? now;
        const expireS = Math.max(1, Math.ceil((newest + LOG_WINDOW_MS - now) / 1000));
        const record: LogRecord = {
            ...envelope,
            floor: kept.length < entries.length ? entries[entries.length - kept.length - 1].seq : floor,
            entries: kept,
        };
        return new Promise(resolve =>
            // a failed write costs a later resume its exactness (it re-reads and reports an overflow), nothing else
            this.store.setSession(sessionKey(channel.origin), expireS, record, () => resolve({ bytes, expireS })),
        );
    }
}

/** What a record keeps of its channel's key (user and patterns): equal keys, equal digests. */
export function logKey(key: string): string {
    return createHash('sha256').update(key).digest('base64url');
}

function sessionKey(origin: string): string {
    return `rest-api-sse:${origin}`;
}
