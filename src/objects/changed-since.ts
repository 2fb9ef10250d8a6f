import { patternToRegExp } from '../access/patterns';
import type { EventBody } from '../events/hub';
import type { EventPatterns } from '../events/sse-channel';
import type { CallerData } from '../storage/data';

/** The most re-read values one resume sends: a replay buffer's worth, the newest. */
export const MAX_CHANGED = 500;

/** The ids a pattern can match all start with what comes before its first `*`. */
function keyRange(pattern: string): [string, string] {
    const star = pattern.indexOf('*');
    const prefix = star < 0 ? pattern : pattern.slice(0, star);
    return [prefix, `${prefix}\u9999`];
}

async function objectsOf(data: CallerData, pattern: string): Promise<Record<string, ioBroker.Object>> {
    // every type: object events are not limited to state objects, as getForeignObjects would be
    const objects = await data.readableObjectsBetween(...keyRange(pattern), { objects: pattern });
    const matches = patternToRegExp(pattern);
    return Object.fromEntries(Object.entries(objects).filter(([id]) => matches.test(id)));
}

/**
 * The current states and objects of an event stream's patterns whose `ts` is at or after `since`, as
 * events the caller may read, oldest first: what a stream resumed on another instance (or after a
 * restart) re-reads instead of a replay buffer it cannot have. At the same millisecond as the last
 * event seen counts too: one event twice is better than one skipped.
 */
export async function changedSince(
    data: CallerData,
    { states, objects }: EventPatterns,
    since: number,
): Promise<EventBody[]> {
    const found: Array<{ time: number; event: EventBody }> = [];
    for (const pattern of states) {
        for (const [id, state] of Object.entries(await data.readableStates(pattern))) {
            if (state && state.ts >= since) {
                found.push({ time: state.ts, event: { id, state } });
            }
        }
    }
    for (const pattern of objects) {
        for (const [id, obj] of Object.entries(await objectsOf(data, pattern))) {
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
