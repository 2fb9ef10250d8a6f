import { HttpError } from '../http/http-error';
import type { SourceFor } from './event-access';
import type { StreamWriter } from '../http/send';
import {
    DISCONNECT_FRAME,
    OVERFLOW_FRAME,
    SseChannel,
    SseStream,
    type EventPatterns,
    type HeldEvent,
} from './sse-channel';
import type { EventBody } from './hub';
import { UserLimits } from './user-limits';
import { formatEventId, parseEventId } from './event-id';
import { MAX_CHANGED } from '../objects/changed-since';
import { deadline, type Timers } from '../instance/timers';
import { eventIdentity } from './polling';
import { logKey, type SseLog } from './sse-log';
import { EventStats } from './event-stats';

export interface SseLimits {
    streamsPerUser: number;
    streamsTotal: number;
    /** Events kept per channel for resuming. */
    replaySize: number;
    /** How long a channel stays subscribed after its last stream closed. */
    graceMs: number;
}

export const SSE_DEFAULTS: SseLimits = { streamsPerUser: 10, streamsTotal: 200, replaySize: 500, graceMs: 60_000 };

/** Resuming anywhere: the channels' logs in the states database, read with the caller's rights of now. */
export interface SharedReplay {
    log: SseLog;
    mayRead(owner: string, event: EventBody): Promise<boolean>;
    /** The other instances alive now (their channels go on logging). */
    peersAlive(): string[];
}

export interface OpenOptions {
    heartbeatMs: number;
    /** From `Last-Event-ID`: replay what came after it. */
    lastEventId?: string;
    /**
     * For an id this instance did not issue: the current values of the stream's ids changed at or
     * after `since` (ms), oldest first, as the caller may read them.
     */
    changedSince?: (since: number) => Promise<EventBody[]>;
}

/** The value's own time (ms); 0 for a deletion. */
function eventTime(event: EventBody): number {
    return ('state' in event ? event.state?.ts : event.obj?.ts) ?? 0;
}

/** How long a resume waits for the log of a live channel elsewhere to catch up (it writes every half second). */
const LOG_SETTLE_MS = 600;

function channelKey(user: string, { states, objects, devices = [] }: EventPatterns): string {
    return [user, states.join(','), objects.join(','), devices.join(',')].join('\u0000');
}

/** Every server-sent event stream of this instance: channels by user and patterns, within fixed limits. */
export class SseRegistry {
    private readonly channels = new Map<string, SseChannel>();
    private closed = false;
    private readonly streams: UserLimits;

    constructor(
        private readonly sourceFor: SourceFor,
        private readonly timers: Timers,
        private readonly limits: SseLimits = SSE_DEFAULTS,
        private readonly stats = new EventStats(),
        /** The replay buffers kept in the database for every instance, and the rights check for what they replay. */
        private readonly shared?: SharedReplay,
    ) {
        this.streams = new UserLimits(
            { perUser: limits.streamsPerUser, total: limits.streamsTotal },
            { message: 'Too many event streams' },
        );
    }

    /** Open event streams, of every user. */
    get openStreams(): number {
        return this.streams.count();
    }

    /** Subscribes (or joins the channel) and answers the function that runs the stream once headers are out. */
    async open(
        user: string,
        patterns: EventPatterns,
        { heartbeatMs, lastEventId, changedSince }: OpenOptions,
    ): Promise<(out: StreamWriter) => void> {
        this.assertRoom(user);
        const key = channelKey(user, patterns);
        let channel = this.channels.get(key);
        if (!channel) {
            channel = this.createChannel(key, user);
            channel.ready = channel.subscribe(patterns);
        }
        try {
            await channel.ready;
        } catch (err) {
            this.drop(key, channel);
            throw err;
        }
        const missed = lastEventId === undefined ? [] : await this.missed(channel, lastEventId, user, changedSince);
        if (this.channels.get(key) !== channel) {
            // evicted or closed while subscribing: release what the subscription added meanwhile
            this.drop(key, channel);
            this.assertRoom(user);
            throw new HttpError('TOO_MANY_REQUESTS', 'Too many event streams');
        }
        // checked again: other streams may have opened, or the adapter begun to stop, while we waited
        this.assertRoom(user);
        const joined = channel;
        const stream = new SseStream(heartbeatMs, this.timers, s => this.leave(key, joined, s));
        for (const frame of missed) {
            stream.send(frame);
        }
        this.timers.clearTimeout(channel.graceTimer);
        channel.streams.add(stream);
        this.streams.opened(user);
        return out => stream.attach(out);
    }

    /**
     * The frames a resuming client gets before live events. For a foreign id: overflow, the values
     * changed since its time (re-read, so another instance or a restart loses no change, only the
     * steps between), then what this channel delivered while they were read.
     */
    private async missed(
        channel: SseChannel,
        lastEventId: string,
        user: string,
        changedSince: OpenOptions['changedSince'],
    ): Promise<string[]> {
        const resume = channel.resume(lastEventId);
        if (resume.held) {
            return this.readableNow(channel, user, resume.frames, resume.held);
        }
        if (resume.since === undefined) {
            return resume.frames;
        }
        const mark = channel.position;
        const logged = await this.fromLog(channel, lastEventId, user, changedSince, mark);
        if (logged) {
            const live = channel.eventsAfter(mark).filter(({ event }) => !logged.seen.has(eventIdentity(event)));
            return [...logged.frames, ...live.map(entry => entry.frame)];
        }
        if (!changedSince) {
            return resume.frames;
        }
        const changed = await changedSince(resume.since);
        return [...resume.frames, ...changed.map(event => channel.frame(event, mark)), ...channel.framesAfter(mark)];
    }

    /**
     * Events this channel holds, as the caller may read them now: rights taken away since they were
     * delivered apply to their replay, as to the shared log's; an overflow first where some are left out.
     */
    private async readableNow(
        channel: SseChannel,
        user: string,
        frames: string[],
        held: HeldEvent[],
    ): Promise<string[]> {
        const mayRead = this.shared?.mayRead;
        const sent: string[] = [];
        let refused = false;
        // events delivered while the checks wait are checked too; the stream joins right after the last pass
        for (let batch = held; batch.length;) {
            for (const { event, frame } of batch) {
                if (!mayRead || (await mayRead(user, event))) {
                    sent.push(frame);
                } else {
                    refused = true;
                }
            }
            const last = batch.at(-1)!.seq;
            batch = channel.eventsAfter(last);
            // so many came meanwhile that some left the buffer
            refused ||= (batch[0]?.seq ?? channel.position + 1) > last + 1;
        }
        return refused && frames[0] !== OVERFLOW_FRAME ? [OVERFLOW_FRAME, ...sent] : [...frames, ...sent];
    }

    /**
     * The events after `lastEventId` from the log of the channel that issued it (another instance, or
     * this one before a restart), as the caller may read them now, with their own ids (a replay cut
     * short resumes from the same log); an overflow first where some are gone (older than the log keeps,
     * refused by the caller's rights, or changed after that channel ended). Undefined when there is no
     * log of it for this user and these patterns.
     */
    private async fromLog(
        channel: SseChannel,
        lastEventId: string,
        user: string,
        changedSince: OpenOptions['changedSince'],
        mark: number,
    ): Promise<{ frames: string[]; seen: Set<string> } | undefined> {
        const shared = this.shared;
        const position = parseEventId(lastEventId);
        if (!shared || !position) {
            return undefined;
        }
        for (let attempt = 1; ; attempt++) {
            const record = await shared.log.read(position.origin);
            // the origin only reached the client it was issued to; the key keeps even that to its own user and patterns
            if (!record || record.key !== logKey(channel.key)) {
                return undefined;
            }
            let lost = position.seq < record.floor;
            const frames: string[] = [];
            const seen = new Set<string>();
            for (const entry of record.entries) {
                if (entry.seq <= position.seq) {
                    continue;
                }
                if (await shared.mayRead(user, entry.event)) {
                    const id = formatEventId({ origin: position.origin, seq: entry.seq, time: eventTime(entry.event) });
                    frames.push(channel.frameWithId(entry.event, id));
                    seen.add(eventIdentity(entry.event));
                } else {
                    lost = true;
                }
            }
            // a channel still logs while its instance runs; one of ours is gone (this instance restarted)
            const ended =
                record.closedAt !== undefined ||
                record.by === shared.log.self ||
                !shared.peersAlive().includes(record.by);
            if (changedSince) {
                // what the log does not hold is re-read: its last moments (not written yet) and, once the
                // channel ended, everything after (then the steps between are gone)
                const newest = record.entries.at(-1)?.event;
                const found = await changedSince(Math.max(position.time, newest ? eventTime(newest) : 0));
                const gap = found.filter(event => !seen.has(eventIdentity(event)));
                if (gap.length && !ended && attempt === 1) {
                    // the other instance writes its log at most every half second: read it once more
                    await new Promise<void>(resolve => deadline(this.timers, LOG_SETTLE_MS, resolve));
                    continue;
                }
                lost ||= (ended && gap.length > 0) || found.length >= MAX_CHANGED;
                for (const event of gap) {
                    frames.push(channel.frame(event, mark));
                    seen.add(eventIdentity(event));
                }
            }
            return { frames: lost ? [OVERFLOW_FRAME, ...frames] : frames, seen };
        }
    }

    /** Number of open streams, of one user or of everyone. */
    streamCount(user?: string): number {
        return this.streams.count(user);
    }

    /** On unload: every stream gets a last `{"disconnect":true}` and is closed. */
    async close(): Promise<void> {
        this.closed = true;
        const channels = [...this.channels.values()];
        this.channels.clear();
        for (const channel of channels) {
            this.timers.clearTimeout(channel.graceTimer);
            for (const stream of [...channel.streams]) {
                stream.close(DISCONNECT_FRAME);
            }
        }
        await Promise.all(channels.map(channel => channel.subscriptions.clear()));
        // a client may resume on another instance, or on this one once it runs again
        // not waited for: an unload must not hang on a database that is gone (a missing end mark is
        // read from the instance's alive state instead)
        const log = this.shared?.log;
        channels.forEach(channel => {
            channel.onDelivered = undefined;
            void log?.ended(channel);
        });
    }

    private assertRoom(user: string): void {
        if (this.closed) {
            throw new HttpError('UNAVAILABLE', 'The adapter is stopping');
        }
        this.streams.assertRoom(user);
    }

    private createChannel(key: string, user: string): SseChannel {
        this.makeRoom(user);
        const channel = new SseChannel(user, this.sourceFor(user), this.limits.replaySize, this.stats, key);
        const log = this.shared?.log;
        if (log) {
            channel.onDelivered = delivered => log.changed(delivered);
        }
        this.channels.set(key, channel);
        this.startGrace(key, channel);
        return channel;
    }

    /** Idle channels only wait for a resume: the oldest gives way before a new one exceeds the limits. */
    private makeRoom(user: string): void {
        const all = [...this.channels];
        const mine = all.filter(([, channel]) => channel.user === user);
        const crowded =
            mine.length >= this.limits.streamsPerUser ? mine : all.length >= this.limits.streamsTotal ? all : [];
        if (!crowded.length) {
            return;
        }
        const idle = crowded.find(([, channel]) => !channel.streams.size);
        if (!idle) {
            throw new HttpError('TOO_MANY_REQUESTS', 'Too many event streams');
        }
        this.drop(...idle);
    }

    private leave(key: string, channel: SseChannel, stream: SseStream): void {
        if (channel.streams.delete(stream)) {
            this.streams.closed(channel.user);
        }
        if (!channel.streams.size && !this.closed) {
            this.startGrace(key, channel);
        }
    }

    private startGrace(key: string, channel: SseChannel): void {
        this.timers.clearTimeout(channel.graceTimer);
        channel.graceTimer = this.timers.setTimeout(
            () => !channel.streams.size && this.drop(key, channel),
            this.limits.graceMs,
        );
    }

    private drop(key: string, channel: SseChannel): void {
        this.timers.clearTimeout(channel.graceTimer);
        if (this.channels.get(key) === channel) {
            this.channels.delete(key);
        }
        // releasing never rejects (the feed swallows unsubscribe errors); nobody waits for it
        void channel.subscriptions.clear();
        // an event still on its way must not write the record again after its end mark
        channel.onDelivered = undefined;
        void this.shared?.log.ended(channel);
    }
}
