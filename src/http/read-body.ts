import type { IncomingMessage } from 'node:http';
import getRawBody from 'raw-body';
import { HttpError } from './http-error';

export function hasBody(req: IncomingMessage): boolean {
    const length = req.headers['content-length'];
    return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

/** A body was announced and not (fully) read: the connection cannot be reused without draining it. */
export function bodyUnread(req: IncomingMessage): boolean {
    return hasBody(req) && !req.complete;
}

/** What Node may read and drop after an early answer, keeping the connection (a client still sending gets no EPIPE). */
const DRAIN_LIMIT = 64 * 1024;

/** An unread body too large (or of unknown size) to drain: the connection is closed after the answer instead. */
export function largeBodyUnread(req: IncomingMessage): boolean {
    const declared = req.headers['content-length'];
    return bodyUnread(req) && (declared === undefined || !(Number(declared) <= DRAIN_LIMIT));
}

/** Reads the whole body under `limit`; beyond it answers 413 without buffering the rest. */
export function readRawBody(req: IncomingMessage, limit: number): Promise<Buffer> {
    const declared = Number(req.headers['content-length']);
    if (declared > limit) {
        return Promise.reject(tooLarge(limit));
    }
    // raw-body's callback form: one promise per body instead of its own and ours around it
    return new Promise((resolve, reject) => {
        const unreadable = (): void => reject(new HttpError('BAD_REQUEST', 'Request body could not be read'));
        try {
            getRawBody(req, { limit, length: Number.isFinite(declared) ? declared : undefined }, (err, body) => {
                if (!err) {
                    resolve(body);
                } else if ((err as { type?: string }).type === 'entity.too.large') {
                    reject(tooLarge(limit));
                } else {
                    unreadable();
                }
            });
        } catch {
            // raw-body refuses some streams before reading: still the client's 400, not a 500
            unreadable();
        }
    });
}

export function tooLarge(limit: number): HttpError {
    // the connection is closed after the answer so the client stops sending
    return new HttpError('PAYLOAD_TOO_LARGE', `Request body is larger than ${limit} bytes`, {
        headers: {
            Connection: 'close',
        },
    });
}

function isJsonType(type: string): boolean {
    return /^application\/([\w.+-]+\+)?json/i.test(type);
}

/**
 * Reads a JSON body. Besides `application/json`, text that looks like JSON is accepted whatever
 * the content type, because `curl -d '{...}'` sends form-urlencoded by default.
 * Returns `undefined` for an empty body.
 */
export function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
    if (!hasBody(req)) {
        return Promise.resolve(undefined);
    }
    const type = req.headers['content-type'] ?? '';
    return readRawBody(req, limit).then(bytes => jsonOf(bytes.toString('utf8'), type));
}

/** The JSON a body's text holds; `undefined` for none. */
function jsonOf(text: string, type: string): unknown {
    if (!text.trim()) {
        return undefined;
    }
    if (!isJsonType(type) && !/^\s*[[{]/.test(text)) {
        throw new HttpError('UNSUPPORTED_MEDIA_TYPE', 'The body must be JSON (Content-Type: application/json)');
    }
    if (tooDeep(text)) {
        throw new HttpError('BAD_REQUEST', `Invalid JSON body: nested deeper than ${MAX_JSON_DEPTH} levels`);
    }
    try {
        return JSON.parse(text);
    } catch (err) {
        throw new HttpError('BAD_REQUEST', `Invalid JSON body: ${(err as Error).message}`);
    }
}

/** Deeper JSON would overflow the stack of recursive code (merging, JSON.stringify, js-controller's copies). */
export const MAX_JSON_DEPTH = 256;

/** True when JSON text nests arrays or objects deeper than MAX_JSON_DEPTH; one pass, strings skipped. */
export function tooDeep(text: string): boolean {
    if (text.length <= 2 * MAX_JSON_DEPTH) {
        return false;
    }
    let depth = 0;
    let inString = false;
    for (let i = 0; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if (inString) {
            if (c === 0x5c) {
                i++;
            } else if (c === 0x22) {
                inString = false;
            }
        } else if (c === 0x22) {
            inString = true;
        } else if (c === 0x5b || c === 0x7b) {
            if (++depth > MAX_JSON_DEPTH) {
                return true;
            }
        } else if (c === 0x5d || c === 0x7d) {
            depth--;
        }
    }
    return false;
}

/** An OAuth2-style body: `application/x-www-form-urlencoded` or JSON, as a flat record of strings. */
export async function readFormBody(req: IncomingMessage, limit: number): Promise<Record<string, unknown> | undefined> {
    if (!hasBody(req)) {
        return undefined;
    }
    const type = req.headers['content-type'] ?? '';
    if (/^application\/x-www-form-urlencoded/i.test(type)) {
        const text = (await readRawBody(req, limit)).toString('utf8');
        return Object.fromEntries(new URLSearchParams(text));
    }
    const json = await readJsonBody(req, limit);
    if (json !== undefined && (typeof json !== 'object' || json === null || Array.isArray(json))) {
        throw new HttpError('BAD_REQUEST', 'The body must be a form or a JSON object');
    }
    return json as Record<string, unknown> | undefined;
}
