import type { IncomingMessage, ServerResponse } from 'node:http';
import { toErrorBody } from './http-error';

/** What a route handler may return besides a plain JSON-able value. */
export class Reply {
    constructor(
        readonly status: number,
        readonly body: unknown,
        /** `json` serialises the body; `text` and `bytes` send it as given. */
        readonly kind: 'json' | 'text' | 'bytes' | 'empty',
        readonly headers: Record<string, string> = {},
    ) {}

    static json(body: unknown, status = 200, headers?: Record<string, string>): Reply {
        return new Reply(status, body, 'json', headers);
    }

    static text(body: string, contentType: string, status = 200): Reply {
        return new Reply(status, body, 'text', { 'Content-Type': contentType });
    }

    static bytes(body: Buffer | string, contentType: string, headers: Record<string, string> = {}): Reply {
        return new Reply(200, body, 'bytes', { 'Content-Type': contentType, ...headers });
    }

    static redirect(location: string, status = 302): Reply {
        return new Reply(status, undefined, 'empty', { Location: location });
    }
}

const JSON_TYPE = 'application/json; charset=utf-8';

/** The only place that writes response bodies. */
export function send(req: IncomingMessage, res: ServerResponse, reply: Reply): void {
    if (res.headersSent || res.destroyed) {
        return;
    }
    let payload: string | Buffer | undefined;
    const headers: Record<string, string | number> = { ...reply.headers };
    if (reply.kind === 'json') {
        payload = JSON.stringify(reply.body) ?? 'null';
        headers['Content-Type'] ??= JSON_TYPE;
    } else if (reply.kind !== 'empty') {
        payload = reply.body as string | Buffer;
    }
    headers['Content-Length'] = payload === undefined ? 0 : Buffer.byteLength(payload);
    res.writeHead(reply.status, headers);
    res.end(req.method === 'HEAD' ? undefined : payload);
}

export function sendError(req: IncomingMessage, res: ServerResponse, err: unknown, extra?: Record<string, unknown>): void {
    const { status, body } = toErrorBody(err);
    const headers = (err as { headers?: Record<string, string> })?.headers ?? {};
    send(req, res, Reply.json(extra ? { ...body, ...extra } : body, status, headers));
}
