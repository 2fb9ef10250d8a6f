#!/usr/bin/env node
/*
 * Receiver for ioBroker.rest-api URL hooks: checks the Standard Webhooks signature of every call and
 * prints each verified event as one JSON line on stdout; messages go to stderr.
 * Node.js 20 or newer, no dependencies.
 *
 *   node webhook-receiver.js [--port 9000] [--secret whsec_...]
 *                            [--adapter http://192.168.1.10:8093 --pattern '0_userdata.0.*' [--public-url http://me:9000/hook]]
 *                            [--rejoin-after 30]
 *
 * With --adapter it registers itself at start and unregisters on Ctrl-C. When the adapter says it stops
 * ({"disconnect":true}) and no call follows within --rejoin-after seconds, it registers again, retrying
 * until the adapter answers: rest-api 5 keeps hooks over a restart, but one registered with 4.0.2 is
 * gone after the upgrade, and one removed after failed calls is gone too. Without --secret it makes one
 * up and prints it. Environment: HOOK_PORT, HOOK_HOST, HOOK_SECRET, HOOK_PUBLIC_URL, HOOK_REJOIN_AFTER,
 * IOB_URL, IOB_PATTERN, IOB_USER, IOB_PASSWORD (options win).
 */
'use strict';
const { createHmac, randomBytes, timingSafeEqual } = require('node:crypto');
const { createServer } = require('node:http');
const { networkInterfaces } = require('node:os');
const { parseArgs } = require('node:util');

const { values: options } = parseArgs({
    options: {
        port: { type: 'string', default: process.env.HOOK_PORT || '9000' },
        host: { type: 'string', default: process.env.HOOK_HOST || '0.0.0.0' },
        secret: { type: 'string', default: process.env.HOOK_SECRET },
        'public-url': { type: 'string', default: process.env.HOOK_PUBLIC_URL },
        'rejoin-after': { type: 'string', default: process.env.HOOK_REJOIN_AFTER || '30' },
        adapter: { type: 'string', default: process.env.IOB_URL },
        pattern: { type: 'string', default: process.env.IOB_PATTERN || '0_userdata.0.*' },
        user: { type: 'string', default: process.env.IOB_USER },
        // a password on the command line is visible to every local user (ps); prefer IOB_PASSWORD
        password: { type: 'string', default: process.env.IOB_PASSWORD },
        help: { type: 'boolean', short: 'h' },
    },
});
if (options.help) {
    console.log('usage: webhook-receiver.js [--port 9000] [--host 0.0.0.0] [--secret whsec_...] [--adapter URL --pattern P [--public-url URL] [--user u --password p] [--rejoin-after 30]]');
    process.exit(0);
}

/** Signatures older or newer than this are refused, so a recorded call cannot be replayed later. */
const TOLERANCE_S = 5 * 60;
const MAX_BODY = 1024 * 1024;
const secret = options.secret || `whsec_${randomBytes(24).toString('base64')}`;
// as the adapter signs: a `whsec_` secret is base64, any other is used as its UTF-8 bytes
const key = secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : Buffer.from(secret, 'utf8');
const log = message => console.error(`[hooks] ${message}`);

/** Ids of recently accepted calls: a replay within the tolerance is answered but not processed again. */
const seen = new Map();

/** Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body`; the header may list several. */
function verify(headers, body) {
    const id = headers['webhook-id'];
    const timestamp = headers['webhook-timestamp'];
    const signatures = headers['webhook-signature'];
    if (!id || !timestamp || !signatures) {
        return 'unsigned call';
    }
    if (!/^\d+$/.test(timestamp) || Math.abs(Date.now() / 1000 - Number(timestamp)) > TOLERANCE_S) {
        return 'timestamp outside the tolerance';
    }
    const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
    const valid = signatures.split(' ').some(entry => {
        const [version, signature] = entry.split(',');
        const given = Buffer.from(signature ?? '', 'base64');
        // constant time, so the answer time tells nothing about how much of a guess was right
        return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
    });
    return valid ? null : 'wrong signature';
}

function isReplay(id) {
    const now = Date.now();
    for (const [old, at] of seen) {
        if (now - at > TOLERANCE_S * 1000) {
            seen.delete(old);
        }
    }
    if (seen.has(id)) {
        return true;
    }
    seen.set(id, now);
    return false;
}

function handle(payload) {
    // any call after a disconnect shows the adapter still has the hook
    clearTimeout(rejoinTimer);
    if (payload.test) {
        log('validation call from the adapter answered');
    } else if (payload.disconnect) {
        log('the adapter is stopping');
        if (hookUrl) {
            rejoinTimer = setTimeout(rejoin, Number(options['rejoin-after']) * 1000);
        }
    } else if (payload.overflow) {
        log(`overflow: ${payload.dropped} events were dropped (this receiver was unreachable too long)`);
    } else {
        process.stdout.write(`${JSON.stringify(payload)}\n`);
    }
}

const server = createServer((req, res) => {
    const chunks = [];
    let size = 0;
    req.on('data', chunk => {
        size += chunk.length;
        if (size > MAX_BODY) {
            res.writeHead(413).end();
            req.destroy();
        } else {
            chunks.push(chunk);
        }
    });
    req.on('end', () => {
        // a hook registered with method GET carries the event in the query
        const body = req.method === 'GET' ? new URL(req.url, 'http://x').searchParams.get('event') ?? '' : Buffer.concat(chunks).toString('utf8');
        const problem = verify(req.headers, body);
        if (problem) {
            log(`refused a call from ${req.socket.remoteAddress}: ${problem}`);
            return res.writeHead(401, { 'Content-Type': 'text/plain' }).end(`${problem}\n`);
        }
        let payload;
        try {
            payload = JSON.parse(body);
        } catch {
            return res.writeHead(400).end();
        }
        if (!isReplay(req.headers['webhook-id'])) {
            handle(payload);
        }
        res.writeHead(204).end();
    });
});

function publicUrl() {
    if (options['public-url']) {
        return options['public-url'];
    }
    // the adapter needs an address it can reach; a wildcard bind is no such address
    const wildcard = options.host === '0.0.0.0' || options.host === '::';
    const lan = Object.values(networkInterfaces()).flat().find(i => i.family === 'IPv4' && !i.internal);
    const host = wildcard ? lan?.address ?? '127.0.0.1' : options.host;
    return `http://${host.includes(':') ? `[${host}]` : host}:${server.address().port}/hook`;
}

async function adapterCall(method, body) {
    const auth = options.user ? { Authorization: `Basic ${Buffer.from(`${options.user}:${options.password ?? ''}`).toString('base64')}` } : {};
    const res = await fetch(`${options.adapter.replace(/\/+$/, '')}/v1/states/subscribe`, {
        method,
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(10_000),
    });
    const text = await res.text();
    if (!res.ok) {
        throw new Error(`${method} ${options.adapter}: HTTP ${res.status} ${text}`);
    }
}

async function register(url) {
    // the adapter keeps an existing hook of this URL with its old secret: drop it first
    await adapterCall('DELETE', { url });
    // the adapter validates the URL with a signed {test:true} call before it answers
    await adapterCall('POST', { url, pattern: options.pattern, method: 'POST', secret });
    log(`registered ${url} for ${options.pattern} at ${options.adapter}`);
}

let hookUrl = null;
let rejoinTimer;
/** Registers again, every 10 s until the adapter is back; the adapter keeps a hook it still has. */
async function rejoin() {
    log(`no call since the adapter stopped: registering ${hookUrl} again`);
    try {
        await adapterCall('POST', { url: hookUrl, pattern: options.pattern, method: 'POST', secret });
        log(`registered again for ${options.pattern}`);
    } catch (err) {
        log(`not registered yet (${err.cause?.code ?? err.message}); trying again in 10 s`);
        rejoinTimer = setTimeout(rejoin, 10_000);
    }
}

async function shutdown() {
    clearTimeout(rejoinTimer);
    if (hookUrl) {
        await adapterCall('DELETE', { url: hookUrl }).catch(err => log(`could not unregister: ${err.message}`));
    }
    server.close();
    // keep-alive connections of the adapter would hold the server open
    server.closeAllConnections();
    log('stopped');
}
for (const signal of ['SIGINT', 'SIGTERM']) {
    // shutdown() logs its own errors, so nothing is left to await here
    process.once(signal, () => void shutdown());
}

server.listen(Number(options.port), options.host, async () => {
    log(`listening on ${options.host}:${server.address().port}`);
    if (!options.secret) {
        log(`secret (register the hook with it): ${secret}`);
    }
    if (!options.adapter) {
        return;
    }
    try {
        const url = publicUrl();
        await register(url);
        hookUrl = url;
    } catch (err) {
        log(`registration failed: ${err.cause?.code ?? err.cause?.message ?? err.message}`);
        process.exitCode = 1;
        server.close();
    }
});
