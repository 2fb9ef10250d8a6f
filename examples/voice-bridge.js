#!/usr/bin/env node
/*
 * A voice-bridge-style client of ioBroker.rest-api: turns a spoken sentence into device writes.
 * "turn on the light in the kitchen", "turn off the lights in the Wohnzimmer",
 * "set the light in the living room to 30". Prints one JSON line per device written on stdout.
 * Node.js 20 or newer, no dependencies.
 *
 *   node voice-bridge.js [--url http://127.0.0.1:8093] [--lang en] "turn on the light in the kitchen"
 *
 * Environment: IOB_URL, IOB_USER, IOB_PASSWORD (options win).
 */
'use strict';
const { parseArgs } = require('node:util');

const { values: options, positionals } = parseArgs({
    allowPositionals: true,
    options: {
        url: { type: 'string', default: process.env.IOB_URL || 'http://127.0.0.1:8093' },
        user: { type: 'string', default: process.env.IOB_USER },
        password: { type: 'string', default: process.env.IOB_PASSWORD },
        lang: { type: 'string', default: 'en' },
    },
});

const headers = { 'Content-Type': 'application/json' };
if (options.user) {
    headers.Authorization = `Basic ${Buffer.from(`${options.user}:${options.password ?? ''}`).toString('base64')}`;
}

/** "turn on|off the <what> in the <room>" or "set the <what> in the <room> to <number>". */
function parse(sentence) {
    const text = sentence.trim().replace(/[.!?]$/, '');
    let m = /^(?:turn|switch)\s+(on|off)\s+(?:the\s+)?(.+?)\s+in\s+(?:the\s+)?(.+)$/i.exec(text);
    if (m) {
        return { action: m[1].toLowerCase(), what: m[2], room: m[3] };
    }
    m = /^set\s+(?:the\s+)?(.+?)\s+in\s+(?:the\s+)?(.+?)\s+to\s+(-?\d+(?:\.\d+)?)\s*%?$/i.exec(text);
    if (m) {
        return { action: 'set', what: m[1], room: m[2], value: Number(m[3]) };
    }
    return null;
}

async function api(method, path, body) {
    const res = await fetch(options.url + path, { method, headers, body: body && JSON.stringify(body) });
    return { status: res.status, json: await res.json().catch(() => null) };
}

/** The devices of a function (or, failing that, a device type) in a room; a plural "lights" names "light" too. */
async function find(what, room) {
    const tries = [what, what.replace(/s$/i, '')];
    for (const name of tries) {
        for (const param of ['function', 'type']) {
            const query = new URLSearchParams({ room, [param]: name, lang: options.lang });
            const res = await api('GET', `/v1/devices?${query}`);
            if (res.status === 200) {
                return Object.values(res.json);
            }
            if (res.status !== 422) {
                throw new Error(`${res.status} ${res.json?.error}`);
            }
        }
    }
    throw new Error(`no room "${room}" or nothing called "${what}" there`);
}

const SWITCHES = ['ON_SET', 'ON', 'SET', 'POWER'];
const LEVELS = ['LEVEL', 'SET', 'BRIGHTNESS', 'VOLUME'];

/** The role and value that carry out `command` on `device`, or null when it has none. */
function writeFor(device, command) {
    const typed = (roles, type) => roles.find(role => device.states[role]?.type === type);
    if (command.action === 'set') {
        const role = typed(LEVELS, 'number');
        return role ? { [role]: command.value } : null;
    }
    const on = command.action === 'on';
    const role = typed(SWITCHES, 'boolean');
    if (role) {
        return { [role]: on };
    }
    // a dimmer without a switch: full or nothing
    const level = typed(LEVELS, 'number');
    const state = level && device.states[level];
    return level ? { [level]: on ? (state.max ?? 100) : (state.min ?? 0) } : null;
}

async function main() {
    const command = parse(positionals.join(' '));
    if (!command) {
        console.error('say e.g. "turn on the light in the kitchen" or "set the light in the kitchen to 30"');
        process.exit(2);
    }
    let failed = false;
    for (const device of await find(command.what, command.room)) {
        const body = writeFor(device, command);
        if (!body) {
            console.error(`${device.name}: cannot ${command.action}`);
            continue;
        }
        const res = await api('PATCH', `/v1/devices/${encodeURIComponent(device.id)}`, body);
        failed ||= res.status !== 200;
        console.log(JSON.stringify({ id: device.id, name: device.name, status: res.status, written: body }));
    }
    process.exit(failed ? 1 : 0);
}

main().catch(err => {
    console.error(err.message);
    process.exit(1);
});
