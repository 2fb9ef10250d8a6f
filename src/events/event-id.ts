import { randomBytes } from 'node:crypto';

/**
 * Where an event-stream id points: `<origin>.<seq>.<time>`. The origin is drawn anew for every
 * channel (so per instance and per start), which makes an id from another instance, from before a
 * restart or from an expired channel recognisable as foreign instead of being read as a local
 * sequence number. The time (the value's `ts`, ms) lets any instance re-read what changed after it.
 */
export interface EventPosition {
    origin: string;
    seq: number;
    time: number;
}

const FORMAT = /^([A-Za-z0-9_-]{8})\.(\d{1,15})\.(\d{1,15})$/;

/** Eight url-safe characters: 48 random bits, so two channels practically never share one. */
export function newOrigin(): string {
    return randomBytes(6).toString('base64url');
}

export function formatEventId({ origin, seq, time }: EventPosition): string {
    return `${origin}.${seq}.${time}`;
}

/** null for anything we never issued in this format (older numeric ids, garbage). */
export function parseEventId(text: string): EventPosition | null {
    const match = FORMAT.exec(text);
    return match ? { origin: match[1], seq: Number(match[2]), time: Number(match[3]) } : null;
}
