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

/** What a body is wanted for: its exact bytes (files, webhooks), or the JSON it holds. */
export type BodyUse = 'bytes' | 'json';

/**
 * A body that a parser before us has read already (the web adapter's body-parser, with its auth on:
 * urlencoded, JSON and text), used only where its result gives what the client sent: the bytes of a
 * text body or of a form that is one lone field (`curl -d '{"val":1}'`) when decoding them provably lost
 * nothing, and for JSON use the value of a JSON body. Anything else is a 415 naming the content type
 * web leaves alone. `undefined` where the body is still ours to read.
 */
export function bodyReadBefore(req: IncomingMessage, use: BodyUse = 'bytes'): Buffer | undefined {
    const parsed = req as IncomingMessage & ParsedRequest;
    // read to its end and a result left: body-parser (1.x also sets `_body`, 2.x only `body`)
    if (!req.readableEnded || parsed.body === undefined) {
        return undefined;
    }
    const body = withoutWebLogin(req, parsed.body);
    if (Buffer.isBuffer(body)) {
        return body;
    }
    if (typeof body === 'string') {
        return exactBytes(req, body) ?? refuse('text/plain', use);
    }
    if (/^application\/x-www-form-urlencoded/i.test(req.headers['content-type'] ?? '')) {
        const fields = body && typeof body === 'object' ? Object.entries(body) : [];
        // `+` and a space both became a space: a lone field with one cannot be told back
        const lone = fields.length === 1 && fields[0][1] === '' && !fields[0][0].includes(' ');
        return (lone ? exactBytes(req, fields[0][0]) : undefined) ?? refuse('application/x-www-form-urlencoded', use);
    }
    if (use === 'bytes') {
        return refuse('application/json', use);
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
 * The client's bytes of a text the parser decoded, when decoding lost nothing: UTF-8 without a content
 * coding, nothing replaced by U+FFFD, and exactly as many bytes as announced (a `%xx` or a byte-order
 * mark that was taken out makes them fewer).
 */
function exactBytes(req: IncomingMessage, text: string): Buffer | undefined {
    const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(req.headers['content-type'] ?? '')?.[1].toLowerCase();
    const coding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
    if ((charset && charset !== 'utf-8' && charset !== 'utf8') || coding !== 'identity' || text.includes('\uFFFD')) {
        return undefined;
    }
    const bytes = Buffer.from(text);
    return Number(req.headers['content-length']) === bytes.length ? bytes : undefined;
}

/** A body web has already turned into something else than the client's bytes: which type to send instead. */
function refuse(parsedAs: string, use: BodyUse): never {
    const instead =
        use === 'json'
            ? 'send JSON as application/json, or as application/octet-stream'
            : 'send it as application/octet-stream (or multipart/form-data for a file)';
    throw new HttpError(
        'UNSUPPORTED_MEDIA_TYPE',
        `The web adapter has already parsed this ${parsedAs} body, and what the client sent cannot be told from its result: ${instead}`,
    );
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
export function readRawBody(req: IncomingMessage, limit: number, use: BodyUse = 'bytes'): Promise<Buffer> {
    const declared = Number(req.headers['content-length']);
    if (declared > limit) {
        return Promise.reject(tooLarge(limit));
    }
    let before: Buffer | undefined;
    try {
        before = bodyReadBefore(req, use);
    } catch (err) {
        return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
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
    return readRawBody(req, limit, 'json').then(bytes => jsonOf(bytes.toString('utf8'), type));
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

/**
 * The fields of a form web's parser has read: as ours would read them where they are flat strings (its
 * parser makes `a[b]=1` an object and a repeated name an array, which the bytes do not say); otherwise 415.
 */
function formReadBefore(req: IncomingMessage): Record<string, string> | undefined {
    const parsed = (req as IncomingMessage & ParsedRequest).body;
    if (!req.readableEnded || parsed === undefined) {
        return undefined;
    }
    const body = withoutWebLogin(req, parsed);
    const fields = body && typeof body === 'object' ? Object.entries(body) : [];
    if (Array.isArray(body) || fields.some(([, value]) => typeof value !== 'string')) {
        refuse('application/x-www-form-urlencoded', 'json');
    }
    return Object.fromEntries(fields);
}

/** An OAuth2-style body: `application/x-www-form-urlencoded` or JSON, as a flat record of strings. */
export async function readFormBody(req: IncomingMessage, limit: number): Promise<Record<string, unknown> | undefined> {
    if (!hasBody(req)) {
        return undefined;
    }
    const type = req.headers['content-type'] ?? '';
    if (/^application\/x-www-form-urlencoded/i.test(type)) {
        const text = formReadBefore(req) ?? (await readRawBody(req, limit)).toString('utf8');
        return typeof text === 'string' ? Object.fromEntries(new URLSearchParams(text)) : text;
    }
    const json = await readJsonBody(req, limit);
    if (json !== undefined && (typeof json !== 'object' || json === null || Array.isArray(json))) {
        throw new HttpError('BAD_REQUEST', 'The body must be a form or a JSON object');
    }
    return json as Record<string, unknown> | undefined;
}
