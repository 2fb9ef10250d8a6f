import { connect } from 'node:net';

/*
 * HTTP/1.1 over a bare socket: any method, any bytes in the path and body, and a deadline. node:http
 * and fetch refuse made-up methods, unescaped bytes in paths and malformed requests, which the
 * hostile-input tests need to send.
 */

export interface SocketAnswer {
    status: number;
    headers: Record<string, string>;
    body: Buffer;
    /** The answer is an event stream; only its head was read. */
    stream: boolean;
}

export interface SocketRequest {
    method: string;
    /** Sent as given: already percent-encoded text, or raw bytes. */
    path: string | Buffer;
    headers?: Record<string, string>;
    body?: string | Buffer;
    /** A whole request as bytes, instead of method, path, headers and body. */
    raw?: Buffer;
    /** Another loopback address (127.x.y.z) as the client's, e.g. to keep password damping apart. */
    localAddress?: string;
}

export class SocketTimeout extends Error {}

function parseHead(head: string): { status: number; headers: Record<string, string> } {
    const [statusLine, ...lines] = head.split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
        const colon = line.indexOf(':');
        if (colon > 0) {
            const key = line.slice(0, colon).trim().toLowerCase();
            headers[key] = headers[key] ? `${headers[key]}, ${line.slice(colon + 1).trim()}` : line.slice(colon + 1).trim();
        }
    }
    return { status: Number(statusLine.split(' ')[1]), headers };
}

function dechunk(data: Buffer): Buffer {
    const parts: Buffer[] = [];
    let at = 0;
    while (at < data.length) {
        const lineEnd = data.indexOf('\r\n', at);
        if (lineEnd === -1) {
            break;
        }
        const size = parseInt(data.subarray(at, lineEnd).toString('latin1'), 16);
        if (!size) {
            break;
        }
        parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
        at = lineEnd + 2 + size + 2;
    }
    return Buffer.concat(parts);
}

/** One request on its own connection (`Connection: close`); rejects with SocketTimeout after `timeoutMs`. */
export function socketRequest(port: number, request: SocketRequest, timeoutMs = 15_000): Promise<SocketAnswer> {
    const body = request.body === undefined ? undefined : Buffer.from(request.body);
    const headerLines = Object.entries({ Host: `127.0.0.1:${port}`, Connection: 'close', ...(body ? { 'Content-Length': String(body.length) } : {}), ...request.headers })
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join('');
    const bytes =
        request.raw ??
        Buffer.concat([Buffer.from(`${request.method} `), Buffer.from(request.path as string | Buffer), Buffer.from(` HTTP/1.1\r\n${headerLines}\r\n`), body ?? Buffer.alloc(0)]);
    return new Promise((resolve, reject) => {
        const socket = connect({ port, host: '127.0.0.1', localAddress: request.localAddress });
        let data = Buffer.alloc(0);
        let head: { status: number; headers: Record<string, string>; end: number } | undefined;
        let settled = false;
        const finish = (err?: Error): void => {
            if (settled) {
                return;
            }
            settled = true;
            clearTimeout(timer);
            socket.destroy();
            if (head) {
                const rest = data.subarray(head.end);
                const stream = /^text\/event-stream/.test(head.headers['content-type'] ?? '');
                const content = head.headers['transfer-encoding'] === 'chunked' && !stream ? dechunk(rest) : rest;
                resolve({ status: head.status, headers: head.headers, body: content, stream });
            } else {
                reject(err ?? new Error(`connection closed without an answer (${data.length} bytes)`));
            }
        };
        const timer = setTimeout(() => finish(new SocketTimeout(`no answer within ${timeoutMs} ms`)), timeoutMs);
        socket.on('data', chunk => {
            data = Buffer.concat([data, chunk]);
            if (!head) {
                const end = data.indexOf('\r\n\r\n');
                if (end === -1) {
                    return;
                }
                head = { ...parseHead(data.subarray(0, end).toString('latin1')), end: end + 4 };
            }
            const length = head.headers['content-length'];
            if (/^text\/event-stream/.test(head.headers['content-type'] ?? '') || (length !== undefined && data.length - head.end >= Number(length))) {
                finish();
            }
        });
        // the server may close while a large body is still being sent; an answer read before counts
        socket.on('error', err => finish(err));
        socket.on('close', () => finish());
        socket.write(bytes);
    });
}
