import { createHash } from 'node:crypto';
import type { EventBody } from './hub';

/** The JSON text of an event, by the value object it carries: one write reaches every subscriber with the same object. */
const texts = new WeakMap<object, { id: string; device?: string; text: string; digest?: string }>();

/**
 * An event as JSON text, serialised once per change however many sessions, hooks and streams it goes
 * to (each subscription makes its own `{id, state}`, but they share the state object).
 */
export function eventText(event: EventBody): string {
    const value = 'state' in event ? event.state : event.obj;
    if (!value) {
        return JSON.stringify(event);
    }
    // a device subscription's event carries the same state with its device and role
    const device = 'device' in event ? event.device : undefined;
    const known = texts.get(value);
    if (known && known.id === event.id && known.device === device) {
        return known.text;
    }
    const text = JSON.stringify(event);
    texts.set(value, { id: event.id, device, text });
    return text;
}

/** 192 bits of SHA-256 of `text`, base64url (32 characters): too wide to find two texts with one digest. */
export function textDigest(text: string): string {
    return createHash('sha256').update(text).digest('base64url').slice(0, 32);
}

/** `textDigest` of an event's text, made once per change like the text (half of each hook's message id). */
export function eventDigest(event: EventBody): string {
    const text = eventText(event);
    const value = 'state' in event ? event.state : event.obj;
    const known = value ? texts.get(value) : undefined;
    if (!known || known.text !== text) {
        return textDigest(text);
    }
    return (known.digest ??= textDigest(text));
}

/** Any payload of a poll or a hook as JSON text: events through `eventText`, notices (overflow, disconnect, test) as they are. */
export function payloadText(payload: object): string {
    return 'state' in payload || 'obj' in payload ? eventText(payload as EventBody) : JSON.stringify(payload);
}
