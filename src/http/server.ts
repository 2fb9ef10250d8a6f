import {
    createServer as createHttpServer,
    STATUS_CODES,
    type IncomingMessage,
    type Server,
    type ServerResponse,
} from 'node:http';
import type { Duplex } from 'node:stream';
import { createServer as createHttpsServer } from 'node:https';
import type { Config } from '../instance/config';

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

export interface Certificates {
    key: string;
    cert: string;
    ca?: string;
}

/** A plain `node:http(s)` server with timeouts against slow clients; routing lives elsewhere. */
export function createServer(config: Config, listener: Listener, certificates?: Certificates): Server {
    // a slow client (slowloris) loses its socket once headers or the whole request take too long
    const options = {
        headersTimeout: config.headersTimeout,
        requestTimeout: config.requestTimeout,
        keepAliveTimeout: 5_000,
        connectionsCheckingInterval: Math.min(5_000, config.headersTimeout / 2),
    };
    const server =
        config.secure && certificates
            ? createHttpsServer({ ...options, ...certificates }, listener)
            : createHttpServer(options, listener);
    server.on('clientError', answerClientError);
    return server;
}

/** Node answers a request it cannot parse (unknown method, bad bytes, huge headers) with an empty body; ours is JSON. */
function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
    const current = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (err.code === 'ECONNRESET' || !socket.writable || current?.headersSent) {
        socket.destroy();
        return;
    }
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    const body = JSON.stringify({ error: STATUS_CODES[status] });
    socket.end(
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
}

/**
 * Connections the kernel may hold before we accept them (capped by `net.core.somaxconn`). After a
 * restart or a network blip, thousands of long polls and event streams reconnect at once; with
 * Node's default of 511 the rest of their SYNs are dropped, retried a second or more later, and some
 * connections are lost.
 */
export const ACCEPT_QUEUE = 4096;

export function listen(server: Server, port: number, bind: string): Promise<void> {
    return new Promise((resolve, reject) => {
        server.once('error', reject);
        const host = !bind || bind === '0.0.0.0' ? undefined : bind;
        server.listen({ port, host, backlog: ACCEPT_QUEUE }, () => {
            server.off('error', reject);
            resolve();
        });
    });
}

/**
 * Stops accepting, ends idle keep-alive sockets and gives busy ones a moment to finish. This runs
 * while the instance stops, when js-controller gives no timer: the moment is a timed signal.
 */
export function close(server: Server, graceMs = 1000): Promise<void> {
    return new Promise(resolve => {
        const grace = new AbortController();
        AbortSignal.any([AbortSignal.timeout(graceMs), grace.signal]).addEventListener(
            'abort',
            () => grace.signal.aborted || server.closeAllConnections(),
            { once: true },
        );
        server.close(() => {
            grace.abort();
            resolve();
        });
        server.closeIdleConnections();
    });
}
