/*
 * `npm run bench -- --only history`, second part: 40,000 history requests with distinct upper/lower-case
 * spellings of time zones, half refused (an id the caller may not read) and half allowed (past the
 * rights, so the zone and times are parsed; no history instance answers them). A cache entry per
 * spelling would grow our RSS by gigabytes; it should end within 20 MB of where it started.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { hashPassword } from '../test/support/iobroker';
import { startRuntime, type OursOptions } from './fixture';

const ZONES = ['america/argentina/buenos_aires', 'europe/berlin', 'america/los_angeles', 'australia/lord_howe'];
const PARALLEL = 4;

/** The `i`th upper/lower-case spelling of a zone (distinct for every i below 2^letters of the zone). */
function spelling(i: number): string {
    const zone = ZONES[i % ZONES.length];
    let bits = Math.floor(i / ZONES.length);
    return [...zone]
        .map(c => {
            if (!/[a-z]/.test(c)) {
                return c;
            }
            const upper = bits & 1;
            bits >>= 1;
            return upper ? c.toUpperCase() : c;
        })
        .join('');
}

export interface ZoneFigures {
    requests: number;
    statuses: Record<string, number>;
    seconds: number;
    rssBeforeMB: number;
    rssAfterMB: number;
    rssAfterSettleMB: number;
}

async function token(baseUrl: string, username: string, password: string): Promise<string> {
    const res = await fetch(`${baseUrl}/oauth/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'password', username, password, client_id: 'ioBroker' }),
    });
    const body = (await res.json()) as { access_token?: string };
    if (!body.access_token) {
        throw new Error(`token for ${username}: ${res.status} ${JSON.stringify(body)}`);
    }
    return body.access_token;
}

export async function measureZoneSpellings(ours: OursOptions, requests = 40_000): Promise<ZoneFigures> {
    const rt = await startRuntime(ours, { auth: true, checkInterval: 0 });
    try {
        const { objects } = rt.storage;
        const user = 'system.user.zones';
        await objects.setObjectAsync(user, { _id: user, type: 'user', common: { name: 'zones', enabled: true, password: await hashPassword('zones') }, native: {} });
        const acl = { object: { read: true, list: true }, state: { read: true, list: true }, file: {}, users: {}, other: { sendto: true } };
        await objects.setObjectAsync('system.group.zones', { _id: 'system.group.zones', type: 'group', common: { name: 'zones', members: [user], acl }, native: {} });
        for (const [id, state] of [['0_userdata.0.zones.open', 0x664], ['0_userdata.0.zones.private', 0x600]] as const) {
            await objects.setObjectAsync(id, {
                _id: id,
                type: 'state',
                common: { name: id, type: 'number', role: 'value', read: true, write: true },
                native: {},
                acl: { owner: 'system.user.admin', ownerGroup: 'system.group.administrator', object: 0x664, state },
            });
        }
        const headers = { Authorization: `Bearer ${await token(rt.baseUrl, 'zones', 'zones')}` };
        const statuses: Record<string, number> = {};
        const ask = async (i: number): Promise<void> => {
            const id = i % 2 ? '0_userdata.0.zones.private' : '0_userdata.0.zones.open';
            const url = `${rt.baseUrl}/v1/history?ids=${id}&tz=${encodeURIComponent(spelling(i >> 1))}&start=2026-01-01T00:00&period=day&instance=history.0`;
            const res = await fetch(url, { headers });
            await res.arrayBuffer();
            statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        };
        // a few first, so that what any first request loads is there before the start is measured
        for (let i = 0; i < 200; i++) {
            await ask(requests + i);
        }
        await delay(2000);
        const rssBeforeMB = Math.round(rt.ours.rss());
        const started = Date.now();
        let next = 0;
        await Promise.all(
            Array.from({ length: PARALLEL }, async () => {
                while (next < requests) {
                    await ask(next++);
                }
            }),
        );
        const seconds = Math.round((Date.now() - started) / 100) / 10;
        const rssAfterMB = Math.round(rt.ours.rss());
        await delay(5000);
        const figures = { requests, statuses, seconds, rssBeforeMB, rssAfterMB, rssAfterSettleMB: Math.round(rt.ours.rss()) };
        console.log(`bench: ${requests.toLocaleString('en')} history requests with distinct zone spellings, refused and allowed: ${JSON.stringify(figures)}`);
        return figures;
    } finally {
        await rt.stop();
    }
}
