import { request, type IncomingMessage } from 'node:http';

/** One parsed block of a text/event-stream: an event, or a comment such as `: ping`. */
export interface SseEvent {
    id?: string;
    event?: string;
    data?: string;
    comment?: string;
}

export interface SseClient {
    status: number;
    headers: IncomingMessage['headers'];
    /** The next block (events and comments alike), waiting up to `timeoutMs`. */
    next(timeoutMs?: number): Promise<SseEvent>;
    /** The next block that is not a comment. */
    nextEvent(timeoutMs?: number): Promise<SseEvent>;
    /** Resolves when the server ended the stream. */
    ended: Promise<void>;
    close(): void;
}

function parseBlock(block: string): SseEvent {
    const event: SseEvent = {};
    for (const line of block.split('\n')) {
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === '') {
            event.comment = value;
        } else if (field === 'data') {
            event.data = event.data === undefined ? value : `${event.data}\n${value}`;
        } else if (field === 'id' || field === 'event') {
            event[field] = value;
        }
    }
    return event;
}

/** Reads a stream incrementally with node:http, block by block. */
export function openSse(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
    return new Promise((resolve, reject) => {
        const req = request(url, { headers: { Accept: 'text/event-stream', ...headers }, agent: false }, res => {
            const blocks: SseEvent[] = [];
            const waiters: Array<() => void> = [];
            let buffer = '';
            let done = false;
            const wake = (): void => waiters.splice(0).forEach(w => w());
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => {
                buffer += chunk;
                let end: number;
                while ((end = buffer.indexOf('\n\n')) !== -1) {
                    blocks.push(parseBlock(buffer.slice(0, end)));
                    buffer = buffer.slice(end + 2);
                }
                wake();
            });
            // a stream we destroyed ourselves ends with an error; that is no failure here
            res.on('error', () => undefined);
            const ended = new Promise<void>(closed => res.once('close', closed)).then(() => {
                done = true;
                wake();
            });
            const next = async (timeoutMs = 5000): Promise<SseEvent> => {
                const deadline = Date.now() + timeoutMs;
                while (!blocks.length) {
                    if (done || Date.now() >= deadline) {
                        throw new Error(done ? 'stream ended' : `no event within ${timeoutMs} ms`);
                    }
                    await new Promise<void>(wakeUp => {
                        const timer = setTimeout(wakeUp, deadline - Date.now());
                        waiters.push(() => {
                            clearTimeout(timer);
                            wakeUp();
                        });
                    });
                }
                return blocks.shift()!;
            };
            const nextEvent = async (timeoutMs = 5000): Promise<SseEvent> => {
                for (;;) {
                    const block = await next(timeoutMs);
                    if (block.comment === undefined) {
                        return block;
                    }
                }
            };
            resolve({ status: res.statusCode ?? 0, headers: res.headers, next, nextEvent, ended, close: () => req.destroy() });
        });
        req.on('error', reject);
        req.end();
    });
}
