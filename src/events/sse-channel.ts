import { BoundedQueue } from './bounded-queue';
import { EventStats } from './event-stats';
import type { EventSource } from './event-access';
import { eventText } from './event-text';
import type { StreamWriter } from '../http/send';
import { SubscriptionSet, type EventBody, type Sink } from './hub';

export const OVERFLOW_FRAME = 'event: overflow\ndata: {"overflow":true}\n\n';
export const DISCONNECT_FRAME = 'data: {"disconnect":true}\n\n';
const PING_FRAME = ': ping\n\n';
/** A reader this far behind is closed; it reconnects and resumes from the replay buffer. */
const MAX_BUFFERED_BYTES = 1024 * 1024;
const MAX_REPLAY_BYTES = 256 * 1024;

export interface EventPatterns {
    states: string[];
    objects: string[];
}

/** One open response. Frames wait in `pending` until send() hands over the writer. */
export class SseStream {
    private out: StreamWriter | null = null;
    private readonly pending: string[] = [];
    private heartbeat?: NodeJS.Timeout;
    private closed = false;

    constructor(
        private readonly heartbeatMs: number,
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
        this.heartbeat = setInterval(() => this.send(PING_FRAME), this.heartbeatMs);
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
        clearInterval(this.heartbeat);
        this.out?.end(lastFrame);
        this.onClose(this);
    }
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
    graceTimer?: NodeJS.Timeout;
    private seq = 0;
    /** Events up to this id have left the replay buffer. */
    private floor = 0;
    private readonly replay: BoundedQueue<{ id: number; frame: string }>;

    constructor(
        readonly user: string,
        feed: EventSource,
        replaySize: number,
        private readonly stats = new EventStats(),
    ) {
        this.subscriptions = new SubscriptionSet(feed, this);
        // besides the count, bytes: large objects must not make 200 replay buffers large
        this.replay = new BoundedQueue(replaySize, { max: MAX_REPLAY_BYTES, sizeOf: entry => entry.frame.length }, oldest => (this.floor = oldest.id));
    }

    async subscribe({ states, objects }: EventPatterns): Promise<void> {
        for (const pattern of states) {
            await this.subscriptions.add('state', pattern, {});
        }
        for (const pattern of objects) {
            await this.subscriptions.add('object', pattern, {});
        }
    }

    deliver(event: EventBody): void {
        const id = ++this.seq;
        const frame = `id: ${id}\ndata: ${eventText(event)}\n\n`;
        this.replay.push({ id, frame });
        for (const stream of this.streams) {
            stream.send(frame);
        }
        this.stats.delivered.sse += this.streams.size;
    }

    /** What a client that saw `lastId` missed; an overflow frame first when some of it is gone. */
    missedSince(lastId: number): string[] {
        // an id this channel never issued (e.g. of an expired channel) means unknown losses too
        const lost = lastId < this.floor || lastId > this.seq;
        // ids keep increasing for a client that brings an id of an earlier channel
        this.seq = Math.max(this.seq, lastId);
        const frames = [...this.replay.values()].filter(entry => entry.id > lastId).map(entry => entry.frame);
        return lost ? [OVERFLOW_FRAME, ...frames] : frames;
    }
}
