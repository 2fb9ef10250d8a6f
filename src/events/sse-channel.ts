import { BoundedQueue } from './bounded-queue';
import { EventStats } from './event-stats';
import type { EventSource } from './event-access';
import { eventText } from './event-text';
import { formatEventId, newOrigin, parseEventId } from './event-id';
import type { StreamWriter } from '../http/send';
import { SubscriptionSet, type EventBody, type Sink } from './hub';
import type { Timers } from '../instance/timers';

export const OVERFLOW_FRAME = 'event: overflow\ndata: {"overflow":true}\n\n';
export const DISCONNECT_FRAME = 'data: {"disconnect":true}\n\n';
const PING_FRAME = ': ping\n\n';
/** A reader this far behind is closed; it reconnects and resumes from the replay buffer. */
const MAX_BUFFERED_BYTES = 1024 * 1024;
const MAX_REPLAY_BYTES = 256 * 1024;

export interface EventPatterns {
    states: string[];
    objects: string[];
    /** Devices, rooms and functions (enum ids) whose states' changes the stream carries with device and role. */
    devices?: string[];
}

/** One open response. Frames wait in `pending` until send() hands over the writer. */
export class SseStream {
    private out: StreamWriter | null = null;
    private readonly pending: string[] = [];
    private heartbeat: ioBroker.Interval | undefined;
    private closed = false;

    constructor(
        private readonly heartbeatMs: number,
        private readonly timers: Timers,
        private readonly onClose: (stream: SseStream) => void,
    ) {}

    attach(out: StreamWriter): void {
        if (this.closed) {
            // closed (adapter unload) before the headers went out: the client still gets what was meant for it
            out.end(this.pending.splice(0).join(''));
            return;
        }
        if (out.signal.aborted) {
            this.close();
            return;
        }
        this.out = out;
        out.signal.addEventListener('abort', () => this.close(), { once: true });
        this.heartbeat = this.timers.setInterval(() => this.send(PING_FRAME), this.heartbeatMs);
        this.send(this.pending.splice(0).join(''));
    }

    send(frame: string): void {
        if (this.closed || !frame) {
            return;
        }
        if (!this.out) {
            this.pending.push(frame);
            return;
        }
        this.out.write(frame);
        if (this.out.buffered() > MAX_BUFFERED_BYTES) {
            this.close();
        }
    }

    close(lastFrame?: string): void {
        if (this.closed) {
            return;
        }
        if (lastFrame && !this.out) {
            this.pending.push(lastFrame);
        }
        this.closed = true;
        this.timers.clearInterval(this.heartbeat);
        this.out?.end(lastFrame);
        this.onClose(this);
    }
}

/** What a reconnecting client gets first: missed frames, and the time to re-read changes from when they are gone. */
export interface Resume {
    frames: string[];
    /** The id came from elsewhere (another instance, before a restart): values changed at or after this time. */
    since?: number;
    /** This channel issued the id: the events after it that it still holds, to be checked against today's rights. */
    held?: HeldEvent[];
}

/** An event in the replay buffer: its sequence number, the event and its frame. */
export interface HeldEvent {
    seq: number;
    event: EventBody;
    frame: string;
}

/** The value's own time (`ts`), the same on every instance; now for a deletion. */
function eventTime(event: EventBody): number {
    const value = 'state' in event ? event.state : event.obj;
    return value?.ts ?? Date.now();
}

/**
 * The subscriptions of one user and one set of patterns, shared by that user's streams and kept for
 * a grace period after the last one closed, so that a reconnecting client can resume.
 */
export class SseChannel implements Sink {
    readonly subscriptions: SubscriptionSet;
    readonly streams = new Set<SseStream>();
    /** Settles once js-controller confirmed every pattern. */
    ready: Promise<void> = Promise.resolve();
    graceTimer?: ioBroker.Timeout;
    /** Names this channel in every id it issues (src/events/event-id.ts). */
    readonly origin = newOrigin();
    private seq = 0;
    /** Events up to this sequence number have left the replay buffer. */
    private floor = 0;
    private readonly replay: BoundedQueue<{ seq: number; frame: string; event: EventBody; at: number }>;
    /** Told after each event (the shared log, src/events/sse-log.ts). */
    onDelivered: ((channel: SseChannel) => void) | undefined;

    constructor(
        readonly user: string,
        feed: EventSource,
        replaySize: number,
        private readonly stats = new EventStats(),
        /** The user and patterns it serves (src/events/sse.ts channelKey). */
        readonly key = '',
    ) {
        this.subscriptions = new SubscriptionSet(feed, this);
        // besides the count, bytes: large objects must not make 200 replay buffers large
        this.replay = new BoundedQueue(
            replaySize,
            { max: MAX_REPLAY_BYTES, sizeOf: entry => entry.frame.length },
            oldest => (this.floor = oldest.seq),
        );
    }

    async subscribe({ states, objects, devices = [] }: EventPatterns): Promise<void> {
        for (const pattern of states) {
            await this.subscriptions.add('state', pattern, {});
        }
        for (const id of devices) {
            await this.subscriptions.add('device', id, {});
        }
        for (const pattern of objects) {
            await this.subscriptions.add('object', pattern, {});
        }
    }

    /** The sequence number of the newest event. */
    get position(): number {
        return this.seq;
    }

    deliver(event: EventBody): void {
        const seq = ++this.seq;
        const frame = this.frame(event, seq);
        this.replay.push({ seq, frame, event, at: Date.now() });
        for (const stream of this.streams) {
            stream.send(frame);
        }
        this.stats.delivered.sse += this.streams.size;
        this.onDelivered?.(this);
    }

    /** The replay buffer for the shared log: what left it, and the events it holds. */
    snapshot(): { floor: number; entries: Array<{ seq: number; at: number; event: EventBody }> } {
        return {
            floor: this.floor,
            entries: [...this.replay.values()].map(({ seq, at, event }) => ({ seq, at, event })),
        };
    }

    /** An event as a frame whose id names this channel, `seq` and the value's time. */
    frame(event: EventBody, seq: number): string {
        return this.frameWithId(event, formatEventId({ origin: this.origin, seq, time: eventTime(event) }));
    }

    /** An event as a frame with the id it had where it was first issued (a replay from another channel's log). */
    frameWithId(event: EventBody, id: string): string {
        return `id: ${id}\ndata: ${eventText(event)}\n\n`;
    }

    /** The buffered events after `seq` with their frames, oldest first. */
    eventsAfter(seq: number): HeldEvent[] {
        return [...this.replay.values()].filter(entry => entry.seq > seq);
    }

    /** The buffered frames after `seq`, oldest first. */
    framesAfter(seq: number): string[] {
        return [...this.replay.values()].filter(entry => entry.seq > seq).map(entry => entry.frame);
    }

    /**
     * What a client that saw `lastId` missed: exactly the events after it when this channel issued it
     * and still holds them (`held`, its frames after an overflow when some are gone); otherwise an
     * overflow frame first, so nothing is ever silently skipped.
     */
    resume(lastId: string): Resume {
        const position = parseEventId(lastId);
        if (position?.origin !== this.origin) {
            return { frames: [OVERFLOW_FRAME], since: position?.time };
        }
        const lost = position.seq < this.floor || position.seq > this.seq;
        return { frames: lost ? [OVERFLOW_FRAME] : [], held: this.eventsAfter(position.seq) };
    }
}
