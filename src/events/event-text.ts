import type { EventBody } from './hub';

/** The JSON text of an event, by the value object it carries: one write reaches every subscriber with the same object. */
const texts = new WeakMap<object, { id: string; text: string }>();

/**
 * An event as JSON text, serialised once per change however many sessions, hooks and streams it goes
 * to (each subscription makes its own `{id, state}`, but they share the state object).
 */
export function eventText(event: EventBody): string {
    const value = 'state' in event ? event.state : event.obj;
    if (!value) {
        return JSON.stringify(event);
    }
    const known = texts.get(value);
    if (known && known.id === event.id) {
        return known.text;
    }
    const text = JSON.stringify(event);
    texts.set(value, { id: event.id, text });
    return text;
}

/** Any payload of a poll or a hook as JSON text: events through `eventText`, notices (overflow, disconnect, test) as they are. */
export function payloadText(payload: object): string {
    return 'state' in payload || 'obj' in payload ? eventText(payload as EventBody) : JSON.stringify(payload);
}
