/*
 * Hook fan-out: `count` URL hooks (`POST /v1/states/subscribe {url, pattern}`, as in 4.0.2) on one
 * state, one write by another js-controller client, and the time from the write to each receiver
 * getting its POST (the last one above all). The yardstick: the bare server's `/fire-hooks`, which
 * posts the same number of small JSON bodies as our delivery does (src/events/hook-delivery.ts: one
 * request per hook, all at once, a connection each). Every round uses its own state and receiver
 * port, so hooks of earlier rounds hear nothing of it.
 */
import { createServer, Agent } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import type { Storage } from '../scripts/embedded-storage';
import { armBare, inBatches, post, writeTrigger } from './events';
import type { BenchAdapter } from './fixture';
import { receiverFigures, type ReceiverFigures } from './sse';

const DEADLINE_MS = 30_000;
/** Room for every hook's connection at once (the kernel caps it at net.core.somaxconn, 4096 here). */
const ACCEPT_QUEUE = 4096;

interface Receiver {
    port: number;
    /** Paths that received an event, with the time since `fire` was set. */
    arrived: Map<string, number>;
    fire(): void;
    done(expected: number): Promise<void>;
    close(): void;
}

/** One port for all hooks of a round (`/h<i>`): registration calls ({test:true}) are answered, not counted. */
async function startReceiver(): Promise<Receiver> {
    const arrived = new Map<string, number>();
    let fired = 0;
    const server = createServer((req, res) => {
        let body = '';
        req.setEncoding('utf8');
        req.on('data', chunk => (body += chunk));
        req.on('end', () => {
            if (fired && body.includes('"state"') && !arrived.has(req.url!)) {
                arrived.set(req.url!, performance.now() - fired);
            }
            res.end();
        });
    });
    // 1,000 connections arrive at once: with Node's default accept queue (511) some SYNs are dropped and
    // retried a second later, which then measured the kernel's retry timer instead of the sender
    await new Promise<void>(resolve => server.listen({ port: 0, host: '127.0.0.1', backlog: ACCEPT_QUEUE }, resolve));
    return {
        port: (server.address() as { port: number }).port,
        arrived,
        fire: () => (fired = performance.now()),
        async done(expected) {
            const until = Date.now() + DEADLINE_MS;
            // arrivals are timed as they come; this only decides when to stop waiting
            while (arrived.size < expected && Date.now() < until) {
                await delay(20);
            }
        },
        close: () => {
            server.close();
            server.closeAllConnections();
        },
    };
}

const figures = (receiver: Receiver, count: number, refused: number): ReceiverFigures => receiverFigures(count, [...receiver.arrived.values()], refused);

/**
 * After the last subscribe, before the write: the adapter saves its hook list 200 ms after a change
 * (src/events/hook-registry.ts), a JSON text of every hook registered so far that the states DB also
 * sends back to it. That save belongs to registering, not to delivering: it is over before the clock starts.
 */
const SETTLE_MS = 500;

/** `count` hooks on the adapter on state `id` (created here); one write. `refused` counts subscribes not answered 200. */
export async function hookFanOut(target: BenchAdapter, storage: Storage, count: number, id: string, settleMs = SETTLE_MS): Promise<ReceiverFigures> {
    await storage.objects.setObjectAsync(id, { type: 'state', common: { name: 'hook bench', type: 'number', role: 'value', read: true, write: true }, native: {} });
    const receiver = await startReceiver();
    let refused = 0;
    try {
        const agent = new Agent({ keepAlive: true, maxSockets: 50 });
        await inBatches(count, 50, async i => {
            const status = await post(agent, `${target.baseUrl}/v1/states/subscribe`, { url: `http://127.0.0.1:${receiver.port}/h${i}`, pattern: id }).catch(() => 0);
            refused += status === 200 ? 0 : 1;
        });
        agent.destroy();
        await delay(settleMs);
        receiver.fire();
        await writeTrigger(storage, id);
        await receiver.done(count - refused);
        return figures(receiver, count, refused);
    } finally {
        receiver.close();
    }
}

/** The same number of POSTs made by the bare server's process, on the same kind of write to `id`. */
export async function bareHookFanOut(bareUrl: string, storage: Storage, count: number, id: string): Promise<ReceiverFigures> {
    const receiver = await startReceiver();
    try {
        await armBare(`${bareUrl}/fire-hooks?port=${receiver.port}&count=${count}`, id);
        receiver.fire();
        await writeTrigger(storage, id);
        await receiver.done(count);
        return figures(receiver, count, 0);
    } finally {
        receiver.close();
    }
}
