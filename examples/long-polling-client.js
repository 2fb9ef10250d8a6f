#!/usr/bin/env node
/*
 * Long-polling client for ioBroker.rest-api: prints every change of the states matching a pattern,
 * one JSON line per event on stdout ({"id":...,"state":{...}}); messages go to stderr.
 * Node.js 20 or newer, no dependencies.
 *
 *   node long-polling-client.js [--url http://127.0.0.1:8093] [--pattern '0_userdata.0.*'] [--count N]
 *
 * Environment: IOB_URL, IOB_PATTERN, IOB_USER, IOB_PASSWORD, IOB_COUNT (options win).
 */
'use strict';
const { randomUUID } = require('node:crypto');
const { setTimeout: sleep } = require('node:timers/promises');
const { parseArgs } = require('node:util');

const { values: options, positionals } = parseArgs({
    allowPositionals: true,
    options: {
        url: { type: 'string', default: process.env.IOB_URL },
        pattern: { type: 'string', default: process.env.IOB_PATTERN },
        user: { type: 'string', default: process.env.IOB_USER },
        // a password on the command line is visible to every local user (ps); prefer IOB_PASSWORD
        password: { type: 'string', default: process.env.IOB_PASSWORD },
        count: { type: 'string', default: process.env.IOB_COUNT },
        timeout: { type: 'string', default: '30000' },
        pause: { type: 'string', default: '5000' },
        sid: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
    },
});
if (options.help) {
    console.log('usage: long-polling-client.js [url] [pattern] [--user u] [--password p] [--count N] [--timeout ms] [--pause ms] [--sid id]');
    process.exit(0);
}

const base = (options.url ?? positionals[0] ?? 'http://127.0.0.1:8093').replace(/\/+$/, '');
const pattern = options.pattern ?? positionals[1] ?? '0_userdata.0.*';
const count = options.count ? Number(options.count) : Infinity;
const pollTimeout = Number(options.timeout);
const pause = Number(options.pause);
for (const [name, value] of Object.entries({ count, timeout: pollTimeout, pause })) {
    if (!(value > 0)) {
        console.error(`--${name} must be a positive number`);
        process.exit(2);
    }
}
// the session id is ours to choose; a random one keeps two clients from sharing a queue
const sid = encodeURIComponent(options.sid ?? `example-${randomUUID()}`);
const auth = options.user ? { Authorization: `Basic ${Buffer.from(`${options.user}:${options.password ?? ''}`).toString('base64')}` } : {};
const log = message => console.error(`[polling] ${message}`);

const stop = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, () => stop.abort());
}

class HttpError extends Error {
    constructor(status, text) {
        super(`HTTP ${status}: ${text}`);
        this.status = status;
    }
}

async function call(path, { method = 'GET', body, signal = stop.signal } = {}) {
    const headers = { ...auth, ...(body ? { 'Content-Type': 'application/json' } : {}) };
    const res = await fetch(base + path, { method, headers, body: body && JSON.stringify(body), signal });
    const text = await res.text();
    if (!res.ok) {
        throw new HttpError(res.status, text);
    }
    return text;
}

async function connect() {
    // the session keeps the timeout: each poll then waits up to that long for an event
    await call(`/v1/polling?sid=${sid}&connect&timeout=${pollTimeout}`);
    await call(`/v1/states/subscribe?sid=${sid}`, { method: 'POST', body: { method: 'polling', pattern } });
    log(`subscribed to ${pattern} at ${base}`);
}

/** An adapter restart between two polls leaves a new, empty session behind: notice it on a quiet poll. */
async function stillSubscribed() {
    try {
        const { states } = JSON.parse(await call(`/v1/states/subscribe?sid=${sid}&method=polling`));
        return states.includes(pattern);
    } catch (err) {
        if (err.status === 404) {
            return false;
        }
        throw err;
    }
}

async function run() {
    let printed = 0;
    let connected = false;
    let failing = false;
    while (!stop.signal.aborted) {
        try {
            if (!connected) {
                await connect();
                connected = true;
                failing = false;
            }
            // batch=true: one answer carries every queued event, so a burst needs few round trips
            // (an adapter without batch mode answers one event, which the loop below handles too)
            const text = await call(`/v1/polling?sid=${sid}&batch=true`);
            if (!text) {
                connected = await stillSubscribed();
                if (!connected) {
                    log('the session was lost (an adapter restart?)');
                }
                continue;
            }
            const answer = JSON.parse(text);
            if (answer.disconnect) {
                // the adapter is stopping and forgets its sessions: subscribe again once it is back
                log(`the adapter is stopping; reconnecting in ${pause} ms`);
                connected = false;
                await sleep(pause, undefined, { signal: stop.signal });
                continue;
            }
            for (const event of [].concat(answer)) {
                if (event.overflow) {
                    // the queue was full: the values in between are lost, re-read /v1/states if they matter
                    log(`overflow: ${event.dropped} events were dropped`);
                    continue;
                }
                process.stdout.write(`${JSON.stringify(event)}\n`);
                if (++printed >= count) {
                    return;
                }
            }
        } catch (err) {
            if (stop.signal.aborted) {
                return;
            }
            if (err instanceof HttpError && err.status < 500) {
                // wrong credentials, rights or pattern do not heal by retrying
                throw err;
            }
            if (!failing) {
                // one line per outage, not one per attempt
                log(`${err.cause?.code ?? err.cause?.message ?? err.message}; retrying every ${pause} ms`);
                failing = true;
            }
            connected = false;
            await sleep(pause, undefined, { signal: stop.signal }).catch(() => undefined);
        }
    }
}

run()
    .then(async () => {
        // leave no subscription behind, but a dead adapter must not hold us (a second Ctrl-C kills at once)
        await call(`/v1/states/subscribe?sid=${sid}`, { method: 'DELETE', body: { method: 'polling' }, signal: AbortSignal.timeout(2000) }).catch(() => undefined);
        log('stopped');
    })
    .catch(err => {
        log(err.message);
        process.exitCode = 1;
    });
