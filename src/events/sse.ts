import { HttpError } from '../http/http-error';
import type { SourceFor } from './event-access';
import type { StreamWriter } from '../http/send';
import { DISCONNECT_FRAME, SseChannel, SseStream, type EventPatterns } from './sse-channel';
import type { EventBody } from './hub';
import { UserLimits } from './user-limits';
import type { Timers } from '../timers';
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

function channelKey(user: string, { states, objects }: EventPatterns): string {
    return [user, states.join(','), objects.join(',')].join('\u0000');
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
        const missed = lastEventId === undefined ? [] : await this.missed(channel, lastEventId, changedSince);
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
        changedSince: OpenOptions['changedSince'],
    ): Promise<string[]> {
        const resume = channel.resume(lastEventId);
        if (resume.since === undefined || !changedSince) {
            return resume.frames;
        }
        const mark = channel.position;
        const changed = await changedSince(resume.since);
        return [...resume.frames, ...changed.map(event => channel.frame(event, mark)), ...channel.framesAfter(mark)];
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
    }

    private assertRoom(user: string): void {
        if (this.closed) {
            throw new HttpError('UNAVAILABLE', 'The adapter is stopping');
        }
        this.streams.assertRoom(user);
    }

    private createChannel(key: string, user: string): SseChannel {
        this.makeRoom(user);
        const channel = new SseChannel(user, this.sourceFor(user), this.limits.replaySize, this.stats);
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
    }
}
