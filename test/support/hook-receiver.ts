/*
 * A loopback receiver for URL hooks: keeps every delivery it accepted and can be told to fail the
 * next calls, to exercise retries.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';

export interface Delivery {
    method: string;
    url: string;
    headers: IncomingHttpHeaders;
    body: string;
}

export interface HookReceiver {
    /** The receiver's base address for hooks, ending in `/hook`. */
    url: string;
    /** Deliveries answered with 200, oldest first; tests may replace it to start over. */
    received: Delivery[];
    /** How the next calls are answered: a status per call, then 200. Failed calls are not kept. */
    failNext: number[];
    close(): void;
}

export async function startHookReceiver(): Promise<HookReceiver> {
    const server = createServer((req, res) => {
        let body = '';
        req.on('data', c => (body += c));
        req.on('end', () => {
            const status = receiver.failNext.shift() ?? 200;
            if (status === 200) {
                receiver.received.push({ method: req.method!, url: req.url!, headers: req.headers, body });
            }
            res.writeHead(status).end();
        });
    });
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
    const receiver: HookReceiver = {
        url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`,
        received: [],
        failNext: [],
        close: () => server.close(),
    };
    return receiver;
}
