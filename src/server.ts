import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Config } from './config';

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

export interface Certificates {
    key: string;
    cert: string;
    ca?: string;
}

/** A plain `node:http(s)` server with timeouts against slow clients; routing lives elsewhere. */
export function createServer(config: Config, listener: Listener, certificates?: Certificates): Server {
    const options = { headersTimeout: 20_000, requestTimeout: 120_000, keepAliveTimeout: 5_000 };
    const server = config.secure && certificates ? createHttpsServer({ ...options, ...certificates }, listener) : createHttpServer(options, listener);
    return server;
}

export function listen(server: Server, port: number, bind: string): Promise<void> {
    return new Promise((resolve, reject) => {
        server.once('error', reject);
        const host = !bind || bind === '0.0.0.0' ? undefined : bind;
        server.listen(port, host, () => {
            server.off('error', reject);
            resolve();
        });
    });
}

/** Stops accepting, ends idle keep-alive sockets and gives busy ones a moment to finish. */
export function close(server: Server, graceMs = 1000): Promise<void> {
    return new Promise(resolve => {
        const timer = setTimeout(() => server.closeAllConnections(), graceMs);
        server.close(() => {
            clearTimeout(timer);
            resolve();
        });
        server.closeIdleConnections();
    });
}
