import type { RequestContext } from '../request-context';
import { isPattern, patternToRegExp } from '../access/patterns';
import { readState } from '../storage/cache/cached-reads';
import { visibleObjects, visibleStates } from '../access/read-checks';
import { seesAll } from '../access/rules';
import { adapterCall } from '../storage/adapter-errors';
import type { EventBody } from '../events/hub';
import type { EventPatterns } from '../events/sse-channel';
import { stateSource } from './listing-sources';

/** The most re-read values one resume sends: a replay buffer's worth, the newest. */
export const MAX_CHANGED = 500;

/** The ids a pattern can match all start with what comes before its first `*`. */
function keyRange(pattern: string): { startkey: string; endkey: string } {
    const star = pattern.indexOf('*');
    const prefix = star < 0 ? pattern : pattern.slice(0, star);
    return { startkey: prefix, endkey: `${prefix}\u9999` };
}

/*
 * Read as the adapter, then filtered per id by the caller's read rules: a stream needs only the read
 * right, not the list right of a pattern listing, and shows exactly the ids it would have delivered.
 */

async function statesOf(ctx: RequestContext, pattern: string): Promise<Record<string, ioBroker.State | null>> {
    if (!isPattern(pattern)) {
        // one id: js-controller's pattern read finds none on Redis; a single read, refused ones left out
        const state = await readState(ctx, pattern).catch(() => null);
        return state ? { [pattern]: state } : {};
    }
    if (seesAll(ctx.acl)) {
        // a state listing's values are states
        return (await stateSource(ctx, pattern).all()) as Record<string, ioBroker.State | null>;
    }
    const states = (await adapterCall(ctx.storage.getForeignStatesAsync(pattern), { pattern })) ?? {};
    return visibleStates(ctx, states, false);
}

async function objectsOf(ctx: RequestContext, pattern: string): Promise<Record<string, ioBroker.Object>> {
    // every type: object events are not limited to state objects, as getForeignObjects would be
    const list = await adapterCall(ctx.storage.getObjectListAsync(keyRange(pattern)), { objects: pattern });
    const matches = patternToRegExp(pattern);
    const found: Record<string, ioBroker.Object> = {};
    for (const row of list?.rows ?? []) {
        if (row.value && matches.test(row.id)) {
            found[row.id] = row.value;
        }
    }
    return visibleObjects(ctx, found);
}

/**
 * The current states and objects of an event stream's patterns whose `ts` is at or after `since`, as
 * events the caller may read, oldest first: what a stream resumed on another instance (or after a
 * restart) re-reads instead of a replay buffer it cannot have. At the same millisecond as the last
 * event seen counts too: one event twice is better than one skipped.
 */
export async function changedSince(ctx: RequestContext, { states, objects }: EventPatterns, since: number): Promise<EventBody[]> {
    const found: Array<{ time: number; event: EventBody }> = [];
    for (const pattern of states) {
        for (const [id, state] of Object.entries(await statesOf(ctx, pattern))) {
            if (state && state.ts >= since) {
                found.push({ time: state.ts, event: { id, state } });
            }
        }
    }
    for (const pattern of objects) {
        for (const [id, obj] of Object.entries(await objectsOf(ctx, pattern))) {
            if ((obj.ts ?? 0) >= since) {
                found.push({ time: obj.ts!, event: { id, obj } });
            }
        }
    }
    return found
        .sort((a, b) => a.time - b.time)
        .slice(-MAX_CHANGED)
        .map(entry => entry.event);
}
