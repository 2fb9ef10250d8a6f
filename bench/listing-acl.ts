/*
 * Listing 10,000 states as a limited user against the administrator, in one run: the per-id read
 * check of every listing (src/access/read-checks.ts) costs what this shows. Both read over HTTP with
 * Basic credentials from a runtime with auth on; medians of sequential requests.
 */
import { hashPassword } from '../test/support/iobroker';
import { startRuntime, type OursOptions } from './fixture';

const PREFIX = 'benchacl.0';

export interface ListingFigures {
    states: number;
    adminMs: number;
    limitedMs: number;
    ratio: number;
    limitedListed: number;
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export async function measureLimitedListing(ours: OursOptions, count = 10_000, repeats = 7): Promise<ListingFigures> {
    const rt = await startRuntime(ours, { auth: true, checkInterval: 0 });
    try {
        const { objects, states } = rt.storage;
        const user = 'system.user.limited';
        await objects.setObjectAsync(user, { _id: user, type: 'user', common: { name: 'limited', enabled: true, password: await hashPassword('limited') }, native: {} });
        const acl = { object: { read: true, list: true }, state: { read: true, list: true }, file: {}, users: {}, other: {} };
        await objects.setObjectAsync('system.group.limited', { _id: 'system.group.limited', type: 'group', common: { name: 'limited', members: [user], acl }, native: {} });
        for (let i = 0; i < count; i++) {
            const id = `${PREFIX}.s${i}`;
            // every third state is private to the administrator: the limited user's answer is smaller
            const private_ = i % 3 === 0;
            await objects.setObjectAsync(id, {
                _id: id,
                type: 'state',
                common: { name: id, type: 'number', role: 'value', read: true, write: true },
                native: {},
                acl: { owner: 'system.user.admin', ownerGroup: 'system.group.administrator', object: 0x664, state: private_ ? 0x600 : 0x664 },
            });
            await states.setStateAsync(id, { val: i, ack: true, from: 'system.adapter.bench.0' });
        }
        const time = async (name: string, password: string): Promise<{ ms: number; listed: number }> => {
            const headers = { Authorization: `Basic ${Buffer.from(`${name}:${password}`).toString('base64')}` };
            const times: number[] = [];
            let listed = 0;
            for (let i = 0; i < repeats; i++) {
                const started = performance.now();
                const res = await fetch(`${rt.baseUrl}/v1/states?filter=${PREFIX}.*`, { headers });
                listed = Object.keys((await res.json()) as object).length;
                times.push(performance.now() - started);
            }
            return { ms: Math.round(median(times)), listed };
        };
        const admin = await time('admin', 'iobroker');
        const limited = await time('limited', 'limited');
        return { states: count, adminMs: admin.ms, limitedMs: limited.ms, ratio: Math.round((limited.ms / admin.ms) * 100) / 100, limitedListed: limited.listed };
    } finally {
        await rt.stop();
    }
}
