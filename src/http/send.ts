import type { IncomingMessage, ServerResponse } from 'node:http';
import { inertHeaders } from './active-content';
import { bodyTag, NO_CACHE, notModified, validatorHeaders, type Validator } from './conditional';
import { toErrorBody } from './http-error';
import {
    dictionaryHash,
    dictionaryText,
    STREAM_FROM_ENTRIES,
    writeDictionary,
    type DictionaryBody,
} from './stream-json';

/** The writing end of a streamed answer (server-sent events). */
export interface StreamWriter {
    write(chunk: string): void;
    end(chunk?: string): void;
    /** Bytes written but not yet taken by the client, to give up on a reader that falls behind. */
    buffered(): number;
    /** Aborted when the client went away; already aborted when there is no body to write (HEAD). */
    signal: AbortSignal;
    /** Settles once the client took what was written (at once when little waits), or when it went away. */
    drained(): Promise<void>;
    /** Ends the answer as broken (the connection is closed without the end of the body): a half file is never taken for whole. */
    abort(): void;
}

/** How a later answer is given: `reply` takes a function that builds it when it is due. */
type LaterAnswer = (reply: (answer: () => Reply) => void) => void;

interface StreamBody {
    start(out: StreamWriter): void;
    signal: AbortSignal;
}

/** What a route handler may return besides a plain JSON-able value. */
export class Reply {
    /** The version of a 200 answer (src/http/conditional.ts): `body` tags the bytes as sent. */
    validator?: Validator | 'body';

    constructor(
        readonly status: number,
        readonly body: unknown,
        /**
         * `json` serialises the body; `dictionary` too, but a large one as it goes; `text` and `bytes`
         * send it as given; `stream` writes over time.
         */
        readonly kind: 'json' | 'dictionary' | 'text' | 'bytes' | 'empty' | 'stream' | 'later',
        readonly headers: Record<string, string> = {},
    ) {}

    /** Told once whether the whole answer reached the connection (false: the client was gone first). */
    afterSent?: (delivered: boolean) => void;

    whenSent(done: (delivered: boolean) => void): Reply {
        this.afterSent = done;
        return this;
    }

    /** This answer with ETag (and Last-Modified), answered 304 to a reader that has this version. */
    validated(validator: Validator | 'body'): Reply {
        this.validator = validator;
        return this;
    }

    static json(body: unknown, status = 200, headers?: Record<string, string>): Reply {
        return new Reply(status, body, 'json', headers);
    }

    /**
     * A listing `{id: value}`, optionally inside an envelope (`{"error":null,"result":<here>}` is
     * `before` = `{"error":null,"result":`, `after` = `}`). Large ones are written while serialised.
     */
    static dictionary(
        entries: Record<string, unknown>,
        headers?: Record<string, string>,
        before = '',
        after = '',
    ): Reply {
        const body: DictionaryBody = { entries, before, after };
        return new Reply(200, body, 'dictionary', headers);
    }

    /** JSON made ahead (e.g. kept per state version): sent as given. */
    static jsonText(text: string): Reply {
        return new Reply(200, text, 'text', { 'Content-Type': JSON_TYPE });
    }

    static text(body: string, contentType: string, status = 200): Reply {
        return new Reply(status, body, 'text', { 'Content-Type': contentType });
    }

    static bytes(body: Buffer | string, contentType: string, headers: Record<string, string> = {}): Reply {
        return new Reply(200, body, 'bytes', { 'Content-Type': contentType, ...headers });
    }

    /** Bytes we did not write (stored files, fetched pages, an instance's reply): never active content of our origin. */
    static untrusted(body: Buffer | string, contentType: string): Reply {
        return Reply.bytes(body, contentType, inertHeaders(contentType));
    }

    /** 204: done, nothing to say. */
    static noContent(): Reply {
        return new Reply(204, undefined, 'empty');
    }

    static redirect(location: string, status = 302): Reply {
        return new Reply(status, undefined, 'empty', { Location: location });
    }

    /**
     * An answer that comes later through a callback rather than a promise, e.g. a long poll answered
     * in the same turn as the event that ends it.
     */
    static later(wait: LaterAnswer): Reply {
        return new Reply(200, wait, 'later');
    }

    /** `start` runs exactly once: after the headers went out, or with an aborted signal when no body can follow. */
    static stream(start: (out: StreamWriter) => void, signal: AbortSignal, headers: Record<string, string>): Reply {
        const body: StreamBody = { start, signal };
        return new Reply(200, body, 'stream', headers);
    }
}

const JSON_TYPE = 'application/json; charset=utf-8';

const ANSWER_HEADERS = Symbol('answer headers');

type WithAnswerHeaders = ServerResponse & { [ANSWER_HEADERS]?: Readonly<Record<string, string>> };

/**
 * Headers every answer to this request carries (CORS), known before a route runs. Kept beside the
 * response and written with the others, since one `res.setHeader` ahead makes Node take every later
 * header one by one.
 */
export function setAnswerHeaders(res: ServerResponse, headers: Readonly<Record<string, string>>): void {
    (res as WithAnswerHeaders)[ANSWER_HEADERS] = headers;
}

/** The answer headers of this request, then the reply's own (they win). */
function headersOf(res: ServerResponse, own: Record<string, string>): Record<string, string | number> {
    const given = (res as WithAnswerHeaders)[ANSWER_HEADERS];
    return given ? { ...given, ...own } : { ...own };
}

/** On every answer: a browser takes each body as the type we name, never sniffs JSON or text into a page. */
export const NOSNIFF = 'nosniff';

/** The only place that writes response bodies. */
export function send(req: IncomingMessage, res: ServerResponse, reply: Reply): void {
    if (reply.kind === 'stream') {
        return sendStream(req, res, reply);
    }
    if (reply.kind === 'later') {
        return sendLater(req, res, reply.body as LaterAnswer);
    }
    if (reply.afterSent) {
        watchDelivery(res, reply.afterSent);
    }
    if (res.headersSent || res.destroyed) {
        return;
    }
    const headers = headersOf(res, reply.headers);
    headers['Cache-Control'] ??= NO_CACHE;
    const validator = reply.status === 200 ? reply.validator : undefined;
    // a validator known before the body: a 304 costs no serialising (the hot path of dashboards)
    if (validator !== undefined && validator !== 'body' && unchanged(req, res, validator, headers)) {
        return;
    }
    if (
        reply.kind === 'dictionary' &&
        Object.keys((reply.body as DictionaryBody).entries).length > STREAM_FROM_ENTRIES
    ) {
        return sendDictionary(req, res, reply, headers);
    }
    let payload: string | Buffer | undefined;
    if (reply.kind === 'json') {
        payload = JSON.stringify(reply.body) ?? 'null';
        headers['Content-Type'] ??= JSON_TYPE;
    } else if (reply.kind === 'dictionary') {
        payload = dictionaryText(reply.body as DictionaryBody);
        headers['Content-Type'] ??= JSON_TYPE;
    } else if (reply.kind !== 'empty') {
        payload = reply.body as string | Buffer;
    }
    if (validator === 'body' && payload !== undefined && unchanged(req, res, { etag: bodyTag(payload) }, headers)) {
        return;
    }
    headers['Content-Length'] = payload === undefined ? 0 : Buffer.byteLength(payload);
    headers['X-Content-Type-Options'] = NOSNIFF;
    res.writeHead(reply.status, headers);
    res.end(req.method === 'HEAD' ? undefined : payload);
}

/** Adds the validator headers; answers 304 (no body, no content headers) and says so when the reader has this version. */
function unchanged(
    req: IncomingMessage,
    res: ServerResponse,
    validator: Validator,
    headers: Record<string, string | number>,
): boolean {
    validatorHeaders(validator, headers);
    if ((req.method !== 'GET' && req.method !== 'HEAD') || !notModified(req.headers, validator)) {
        return false;
    }
    delete headers['Content-Type'];
    delete headers['Content-Length'];
    headers['X-Content-Type-Options'] = NOSNIFF;
    res.writeHead(304, headers);
    res.end();
    return true;
}

/** `answer` builds the reply when it is due, inside the error handling (it may run in an event's delivery). */
/** `finish`: every byte went to the connection; a close before it, or a connection already gone: not. */
function watchDelivery(res: ServerResponse, done: (delivered: boolean) => void): void {
    if (res.destroyed) {
        queueMicrotask(() => done(false));
        return;
    }
    let told = false;
    const tell = (delivered: boolean): void => {
        if (!told) {
            told = true;
            done(delivered);
        }
    };
    res.once('finish', () => tell(true));
    res.once('close', () => tell(res.writableFinished));
}

function sendLater(req: IncomingMessage, res: ServerResponse, wait: LaterAnswer): void {
    let answered = false;
    const reply = (answer: () => Reply): void => {
        if (answered) {
            return;
        }
        answered = true;
        try {
            send(req, res, answer());
        } catch (err) {
            sendError(req, res, err);
        }
    };
    try {
        wait(reply);
    } catch (err) {
        answered = true;
        sendError(req, res, err);
    }
}

/** A large listing, chunked: no Content-Length, since the length is known only at the end. */
function sendDictionary(
    req: IncomingMessage,
    res: ServerResponse,
    reply: Reply,
    headers: Record<string, string | number>,
): void {
    // hashed as it would be written, without holding the whole text
    if (
        reply.validator === 'body' &&
        unchanged(req, res, { etag: dictionaryHash(reply.body as DictionaryBody) }, headers)
    ) {
        return;
    }
    res.writeHead(reply.status, { ...headers, 'Content-Type': JSON_TYPE, 'X-Content-Type-Options': NOSNIFF });
    if (req.method === 'HEAD') {
        res.end();
        return;
    }
    writeDictionary(res, reply.body as DictionaryBody).catch(() => res.destroy());
}

function sendStream(req: IncomingMessage, res: ServerResponse, reply: Reply): void {
    const { start, signal } = reply.body as StreamBody;
    const writable = !res.headersSent && !res.destroyed;
    if (writable) {
        res.writeHead(reply.status, {
            'Cache-Control': NO_CACHE,
            ...headersOf(res, reply.headers),
            'X-Content-Type-Options': NOSNIFF,
        });
        if (req.method === 'HEAD') {
            res.end();
        } else {
            res.flushHeaders();
        }
    }
    // the stream is always told: it owns resources (subscriptions, timers) that only it can release
    start({
        write: chunk => {
            if (!res.writableEnded) {
                res.write(chunk);
            }
        },
        end: chunk => {
            if (!res.writableEnded) {
                res.end(chunk);
            }
        },
        buffered: () => res.writableLength,
        signal: writable && req.method !== 'HEAD' ? signal : AbortSignal.abort(),
        drained: () =>
            res.writableNeedDrain && !res.destroyed
                ? new Promise(resolve => {
                      // one pair of listeners per wait, both gone after it: a long export waits thousands of times
                      const done = (): void => {
                          res.off('drain', done);
                          res.off('close', done);
                          resolve();
                      };
                      res.on('drain', done);
                      res.on('close', done);
                  })
                : Promise.resolve(),
        abort: () => res.destroy(),
    });
}

export function sendError(
    req: IncomingMessage,
    res: ServerResponse,
    err: unknown,
    extra?: Record<string, unknown>,
): void {
    const { status, body } = toErrorBody(err);
    const headers = (err as { headers?: Record<string, string> })?.headers ?? {};
    send(req, res, Reply.json(extra ? { ...body, ...extra } : body, status, headers));
}
