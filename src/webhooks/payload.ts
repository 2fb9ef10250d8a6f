import { HttpError } from '../http/http-error';

/** Per receiver and request: more leaves answer 413, deeper nesting 422; nothing is written then. */
export const MAX_LEAVES = 500;
export const MAX_DEPTH = 8;
/** Inbound payloads are device and service notifications, not uploads. */
export const MAX_PAYLOAD_BYTES = 1024 * 1024;

/** The states every receiver keeps besides the payload's leaves; a payload key of that name gets a `_`. */
export const RESERVED = ['raw', 'lastReceived'];

export interface Leaf {
    /** The id below the receiver, segments joined by dots, each an ioBroker id part. */
    path: string;
    value: string | number | boolean | null;
}

/** A key as one ioBroker id segment: letters and digits of any script, `_` and `-`; the rest becomes `_`. */
export function segment(key: string): string {
    return key.replace(/[^\p{L}\p{N}_-]/gu, '_') || '_';
}

/** Every leaf of a JSON value at its path (arrays by index), checked against the limits before anything is written. */
export function leaves(body: unknown): Leaf[] {
    const found: Leaf[] = [];
    const walk = (value: unknown, path: string[]): void => {
        if (value !== null && typeof value === 'object') {
            if (path.length >= MAX_DEPTH) {
                throw new HttpError('INVALID_PARAMS', `The payload is nested deeper than ${MAX_DEPTH} levels`, {
                    context: { path: path.join('.') },
                });
            }
            for (const [key, child] of Object.entries(value)) {
                const name = segment(key);
                walk(child, [...path, path.length === 0 && RESERVED.includes(name) ? `${name}_` : name]);
            }
            return;
        }
        if (found.length >= MAX_LEAVES) {
            throw new HttpError('PAYLOAD_TOO_LARGE', `The payload has more than ${MAX_LEAVES} values`);
        }
        found.push({ path: path.join('.'), value: value as Leaf['value'] });
    };
    walk(body, []);
    return found.filter(leaf => leaf.path !== '');
}

/**
 * The body as a value to flatten: JSON (an object or array; invalid JSON with a JSON type is a 400),
 * a form as its fields, anything else as text only (kept in `raw`).
 */
export function parsePayload(bytes: Buffer, contentType: string): { value: unknown; raw: string } {
    const text = bytes.toString('utf8');
    if (/^application\/([\w.+-]+\+)?json/i.test(contentType)) {
        let value: unknown;
        try {
            value = JSON.parse(text);
        } catch {
            throw new HttpError('BAD_REQUEST', 'The body is not valid JSON');
        }
        if (value === null || typeof value !== 'object') {
            throw new HttpError('INVALID_PARAMS', 'The JSON body must be an object or an array');
        }
        return { value, raw: text };
    }
    if (/^application\/x-www-form-urlencoded/i.test(contentType)) {
        const fields = Object.fromEntries(new URLSearchParams(text));
        return { value: fields, raw: JSON.stringify(fields) };
    }
    return { value: {}, raw: text };
}

/** `common.type` of a state created for this value. */
export function stateType(value: Leaf['value']): ioBroker.CommonType {
    return value === null ? 'mixed' : (typeof value as ioBroker.CommonType);
}
