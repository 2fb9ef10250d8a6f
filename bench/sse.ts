/*
 * SSE fan-out: `count` open event streams (`GET /v1/events?pattern=<id>`) on one state, one write by
 * another js-controller client, and the time from the write to the first `data:` at each stream's raw
 * socket. The yardstick: the bare server's `/sse` streams, written by `/fire-sse` with a frame of the
 * same size. Raw sockets and no parsing beyond finding `data:`, so the client costs little.
 */
import { connect, type Socket } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { armBare, writeTrigger } from './events';
import { percentile, within, type BenchAdapter } from './fixture';
import type { Storage } from '../scripts/embedded-storage';

export interface ReceiverFigures {
    receivers: number;
    p50Ms: number;
    p99Ms: number;
    /** The last receiver. */
    maxMs: number;
    lost: number;
    /** Refused or closed before the event (e.g. a 429). */
    refused: number;
}

/** `addedRssMB`: the process's RSS with every stream open minus before they opened (when its RSS can be read). */
export type SseFigures = ReceiverFigures & { frameBytes: number; addedRssMB?: number };

/** After the write, how long the streams may take before those still waiting count as lost. */
const DEADLINE_MS = 30_000;

const round1 = (ms: number): number => Math.round(ms * 10) / 10;

export function receiverFigures(receivers: number, latencies: number[], refused: number): ReceiverFigures {
    latencies.sort((a, b) => a - b);
    return { receivers, p50Ms: round1(percentile(latencies, 50)), p99Ms: round1(percentile(latencies, 99)), maxMs: round1(latencies.at(-1) ?? 0), lost: receivers - refused - latencies.length, refused };
}

/** The size of the first frame in `text`, whose `data:` is at `at` (from its `id:` line to the blank line). */
function frameSize(text: string, at: number): number {
    const start = text.lastIndexOf('id:', at);
    const from = start === -1 ? at : start;
    const end = text.indexOf('\n\n', at);
    return (end === -1 ? text.length : end + 2) - from;
}

/** Opens `count` streams, waits until every one has its headers (it is subscribed then), fires, times the first `data:` of each. */
async function holdStreams(host: string, port: number, path: string, count: number, fire: () => Promise<unknown>, rss?: () => number): Promise<SseFigures> {
    const rssBefore = rss?.() ?? 0;
    let rssOpen = 0;
    let fired = 0;
    let refused = 0;
    let opened = 0;
    let frameBytes = 0;
    const latencies: number[] = [];
    const sockets: Socket[] = [];
    let allOpen!: () => void;
    const ready = new Promise<void>(resolve => (allOpen = resolve));
    const settle = (): void => (opened + refused >= count ? allOpen() : undefined);
    const arrived = Array.from(
        { length: count },
        () =>
            new Promise<void>(resolve => {
                let head = '';
                let open = false;
                let done = false;
                const finish = (): void => {
                    done = true;
                    resolve();
                };
                const socket = connect({ host, port }, () => socket.write(`GET ${path} HTTP/1.1\r\nHost: bench\r\nAccept: text/event-stream\r\n\r\n`));
                sockets.push(socket);
                socket.on('data', chunk => {
                    if (done) {
                        return;
                    }
                    let text = chunk.toString('latin1');
                    if (!open) {
                        head += text;
                        const end = head.indexOf('\r\n\r\n');
                        if (end === -1) {
                            return;
                        }
                        if (!head.startsWith('HTTP/1.1 200')) {
                            refused++;
                            settle();
                            return finish();
                        }
                        open = true;
                        opened++;
                        settle();
                        text = head.slice(end + 4);
                    }
                    const at = text.indexOf('data:');
                    // `: ping` comments are no event; nothing but the write is expected before it
                    if (at === -1 || !fired) {
                        return;
                    }
                    latencies.push(performance.now() - fired);
                    frameBytes ||= frameSize(text, at);
                    finish();
                });
                socket.once('close', () => {
                    if (!open && !done) {
                        refused++;
                        settle();
                    }
                    finish();
                });
                socket.on('error', () => undefined);
            }),
    );
    await within(ready, 60_000);
    // the last headers were just read; let the client's loop go idle before the clock starts
    await delay(300);
    rssOpen = rss?.() ?? 0;
    fired = performance.now();
    await fire();
    await within(Promise.all(arrived), DEADLINE_MS);
    sockets.forEach(socket => socket.destroy());
    return { ...receiverFigures(count, latencies, refused), frameBytes, ...(rss ? { addedRssMB: round1(rssOpen - rssBefore) } : {}) };
}

/** `count` streams on the adapter on state `id` (created here), one write by the bench's js-controller client. */
export async function sseFanOut(target: BenchAdapter, storage: Storage, count: number, id: string): Promise<SseFigures> {
    await storage.objects.setObjectAsync(id, { type: 'state', common: { name: 'sse bench', type: 'number', role: 'value', read: true, write: true }, native: {} });
    return holdStreams(target.host, target.port, `/v1/events?pattern=${encodeURIComponent(id)}`, count, () => writeTrigger(storage, id), () => target.rss());
}

/** The same on the bare server, each stream getting one frame of `frameBytes` (the adapter's frame size), on the same kind of write to `id`. */
export async function bareSseFanOut(bareUrl: string, storage: Storage, count: number, frameBytes: number, id: string, rss?: () => number): Promise<SseFigures> {
    const { hostname, port } = new URL(bareUrl);
    await armBare(`${bareUrl}/fire-sse?bytes=${frameBytes}`, id);
    return holdStreams(hostname, Number(port), '/sse', count, () => writeTrigger(storage, id), rss);
}
