/*
 * Long polling as users load-test it, round after round against any instance: each round opens
 * `sessions` fresh sessions (subscribe a pattern, hold a poll), writes once, measures when each poll
 * answers, and unsubscribes them all; the next round starts at once with new session ids.
 * `npm run bench -- --only polling [--url http://user:pass@host:8093] [--sessions N] [--rounds R]`;
 * the test of three back-to-back rounds (test/events/polling-rounds.test.ts) runs the same code.
 */
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { inBatches } from './events';
import { percentile, within } from './fixture';

export interface RoundFigures {
    round: number;
    sessions: number;
    /** Sessions whose subscribe was refused (429 and the like). */
    refused: number;
    /** Polls answered with the written value. */
    delivered: number;
    p50Ms: number;
    p99Ms: number;
    maxMs: number;
    /** Added resident memory per held poll, from the instance's /metrics (undefined where it is not readable). */
    rssPerPollKB?: number;
}

export interface RoundOptions {
    /** The instance, e.g. http://127.0.0.1:8093 (credentials in the URL are sent as Basic). */
    url: string;
    sessions: number;
    /** The state written once per round; created as a number state when missing. */
    stateId?: string;
    /** After the write, how long the answers may take before the polls still waiting count as lost. */
    answerDeadlineMs?: number;
}

const DEFAULT_STATE = '0_userdata.0.bench_rounds';

interface Target {
    base: string;
    host: string;
    port: number;
    headers: Record<string, string>;
}

function targetOf(url: string): Target {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:') {
        throw new Error(`the rounds use plain http on loopback or a LAN, not ${parsed.protocol}`);
    }
    const headers: Record<string, string> = {};
    if (parsed.username) {
        const credentials = `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`;
        headers.Authorization = `Basic ${Buffer.from(credentials).toString('base64')}`;
    }
    const base = `${parsed.protocol}//${parsed.host}${parsed.pathname.replace(/\/$/, '')}`;
    return { base, host: parsed.hostname, port: Number(parsed.port || 80), headers };
}

type Answer = { status: number; text: string };

/**
 * One request on the keep-alive agent. A connection the server closed while it sat idle in the pool
 * fails when it is used again (ECONNRESET): such a request is sent once more on a new connection.
 */
async function call(agent: Agent, target: Target, method: string, path: string, body?: unknown): Promise<Answer> {
    try {
        return await callOnce(agent, target, method, path, body);
    } catch (err) {
        if ((err as { reusedSocket?: boolean }).reusedSocket && (err as NodeJS.ErrnoException).code === 'ECONNRESET') {
            return callOnce(agent, target, method, path, body);
        }
        throw err;
    }
}

function callOnce(agent: Agent, target: Target, method: string, path: string, body?: unknown): Promise<Answer> {
    return new Promise((resolve, reject) => {
        const text = body === undefined ? undefined : JSON.stringify(body);
        const headers = {
            ...target.headers,
            ...(text ? { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(text)) } : {}),
        };
        const req = request(`${target.base}${path}`, { method, agent, headers }, res => {
            let answer = '';
            res.setEncoding('utf8');
            res.on('data', chunk => (answer += chunk));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, text: answer }));
        });
        req.on('error', err => reject(Object.assign(err, { reusedSocket: req.reusedSocket })));
        req.end(text);
    });
}

async function ensureState(agent: Agent, target: Target, id: string): Promise<void> {
    if ((await call(agent, target, 'GET', `/v1/object/${id}`)).status === 200) {
        return;
    }
    const object = {
        type: 'state',
        common: { name: 'load test', type: 'number', role: 'value', read: true, write: true },
        native: {},
    };
    const made = await call(agent, target, 'PUT', `/v1/object/${id}`, object);
    if (made.status !== 200) {
        throw new Error(`cannot create ${id} (${made.status}): ${made.text}`);
    }
}

/** The instance's resident memory from /metrics, in KB; undefined where /metrics is off or refused. */
async function rssKB(agent: Agent, target: Target): Promise<number | undefined> {
    const metrics = await call(agent, target, 'GET', '/metrics').catch(() => undefined);
    const line = metrics?.status === 200 ? /^process_resident_memory_bytes (\S+)$/m.exec(metrics.text) : null;
    return line ? Number(line[1]) / 1024 : undefined;
}

/** One raw socket per poll: a full HTTP client per poll would measure the client more than the server. */
function holdPoll(
    target: Target,
    path: string,
    expected: () => string | undefined,
    answered: (ms: number | undefined) => void,
): Socket {
    const auth = target.headers.Authorization ? `Authorization: ${target.headers.Authorization}\r\n` : '';
    const socket = connect({ host: target.host, port: target.port }, () =>
        socket.write(`GET ${path} HTTP/1.1\r\nHost: ${target.host}\r\n${auth}\r\n`),
    );
    let text = '';
    let done = false;
    const finish = (ms: number | undefined): void => {
        if (!done) {
            done = true;
            answered(ms);
        }
    };
    socket.setEncoding('utf8');
    socket.on('data', chunk => {
        text += chunk;
        const wanted = expected();
        if (wanted !== undefined && text.includes(wanted)) {
            finish(Date.now());
        } else if (/\r\n\r\n/.test(text) && /content-length: 0\r\n/i.test(text)) {
            // an empty answer: the poll ended without the event
            finish(undefined);
        }
    });
    socket.on('close', () => finish(undefined));
    socket.on('error', () => undefined);
    return socket;
}

/** One round: `sessions` fresh sessions `r<round>-<i>`, one write, every session unsubscribed at the end. */
export async function pollingRound(options: RoundOptions, round: number): Promise<RoundFigures> {
    const target = targetOf(options.url);
    const id = options.stateId ?? DEFAULT_STATE;
    const agent = new Agent({ keepAlive: true, maxSockets: 200 });
    try {
        await ensureState(agent, target, id);
        const sids = Array.from({ length: options.sessions }, (_, i) => `r${round}-${i}`);
        const subscribed = new Set<string>();
        await inBatches(sids.length, 200, async i => {
            const answer = await call(agent, target, 'POST', `/v1/states/subscribe?sid=${sids[i]}`, {
                method: 'polling',
                pattern: id,
            });
            if (answer.status === 200) {
                subscribed.add(sids[i]);
            }
        });
        const rssBefore = await rssKB(agent, target);
        let written: string | undefined;
        let fired = 0;
        const latencies: number[] = [];
        const sockets: Socket[] = [];
        const answers = [...subscribed].map(
            sid =>
                new Promise<void>(resolve => {
                    sockets.push(
                        holdPoll(
                            target,
                            `/v1/polling?sid=${sid}&timeout=60000`,
                            () => written,
                            at => {
                                if (at !== undefined) {
                                    latencies.push(at - fired);
                                }
                                resolve();
                            },
                        ),
                    );
                }),
        );
        // every poll is waiting before the write (the server answers none before it)
        await delay(1000 + subscribed.size / 5);
        const rssHeld = await rssKB(agent, target);
        const value = Date.now();
        written = `"val":${value}`;
        fired = Date.now();
        const write = await call(agent, target, 'GET', `/v1/state/${id}?value=${value}`);
        if (write.status !== 200) {
            throw new Error(`the round's write was refused (${write.status}): ${write.text}`);
        }
        await within(Promise.all(answers), options.answerDeadlineMs ?? 60_000);
        sockets.forEach(socket => socket.destroy());
        await inBatches(sids.length, 200, i =>
            call(agent, target, 'POST', `/v1/states/unsubscribe?sid=${sids[i]}`, { method: 'polling' }),
        );
        latencies.sort((a, b) => a - b);
        return {
            round,
            sessions: options.sessions,
            refused: options.sessions - subscribed.size,
            delivered: latencies.length,
            p50Ms: percentile(latencies, 50),
            p99Ms: percentile(latencies, 99),
            maxMs: latencies.at(-1) ?? 0,
            rssPerPollKB:
                rssBefore !== undefined && rssHeld !== undefined && subscribed.size
                    ? Math.round(((rssHeld - rssBefore) / subscribed.size) * 10) / 10
                    : undefined,
        };
    } finally {
        agent.destroy();
    }
}

/** `rounds` rounds back to back; each prints its line as it ends. */
export async function pollingRounds(
    options: RoundOptions,
    rounds: number,
    report: (figures: RoundFigures) => void = () => undefined,
): Promise<RoundFigures[]> {
    const all: RoundFigures[] = [];
    for (let round = 1; round <= rounds; round++) {
        const figures = await pollingRound(options, round);
        report(figures);
        all.push(figures);
    }
    return all;
}
