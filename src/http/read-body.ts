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

/** What a body parser in front of us (the web adapter's, with its auth on) left of a body it read. */
interface ParsedRequest {
    body?: unknown;
}

/**
 * The bytes of a body that a parser before us has read already, as near to what the client sent
 * as its result allows: the JSON text of a JSON body, the text of a text body, the fields of a
 * form (a lone field without a value is text sent as a form, such as `curl -d '{"val":1}'`).
 * `undefined` where the body is still ours to read.
 */
export function bodyReadBefore(req: IncomingMessage): Buffer | undefined {
    const parsed = req as IncomingMessage & ParsedRequest;
    // read to its end and a result left: body-parser (1.x also sets `_body`, 2.x only `body`)
    if (!req.readableEnded || parsed.body === undefined) {
        return undefined;
    }
    const body = withoutWebLogin(req, parsed.body);
    if (typeof body === 'string' || Buffer.isBuffer(body)) {
        return Buffer.from(body);
    }
    const type = req.headers['content-type'] ?? '';
    if (/^application\/x-www-form-urlencoded/i.test(type) && body && typeof body === 'object') {
        const fields = Object.entries(body);
        if (fields.length === 1 && fields[0][1] === '') {
            return Buffer.from(fields[0][0]);
        }
        return Buffer.from(
            new URLSearchParams(
                fields.map(([key, value]): [string, string] => [
                    key,
                    typeof value === 'string' ? value : JSON.stringify(value),
                ]),
            ).toString(),
        );
    }
    // web's JSON.parse takes any depth; writing it out again may overflow the stack (as on Node 24) or not
    let text: string | undefined;
    try {
        text = JSON.stringify(body) ?? '';
    } catch {
        text = undefined;
    }
    if (text === undefined || tooDeep(text)) {
        throw new HttpError('BAD_REQUEST', `Invalid JSON body: nested deeper than ${MAX_JSON_DEPTH} levels`);
    }
    return Buffer.from(text);
}

/**
 * With Basic allowed, web logs the client in by writing the header's user name and password into
 * the parsed body (`username`, `password`, `stayLoggedIn`): those fields are web's, never the client's
 * data, and must not reach a state or an object.
 */
function withoutWebLogin(req: IncomingMessage, body: unknown): unknown {
    // read the header exactly as web does: any value that starts with "Basic", the second word
    const header = req.headers.authorization ?? '';
    if (!header.startsWith('Basic') || !body || typeof body !== 'object' || Array.isArray(body)) {
        return body;
    }
    const [user, password] = Buffer.from(header.split(' ')[1] ?? '', 'base64')
        .toString()
        .split(':');
    const fields = body as Record<string, unknown>;
    if (fields.username !== user || fields.password !== password) {
        return body;
    }
    const { username: _user, password: _password, stayLoggedIn: _stay, ...own } = fields;
    return own;
}

/** Reads the whole body under `limit`; beyond it answers 413 without buffering the rest. */
export function readRawBody(req: IncomingMessage, limit: number): Promise<Buffer> {
    const declared = Number(req.headers['content-length']);
    if (declared > limit) {
        return Promise.reject(tooLarge(limit));
    }
    const before = bodyReadBefore(req);
    if (before) {
        return before.length > limit ? Promise.reject(tooLarge(limit)) : Promise.resolve(before);
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
