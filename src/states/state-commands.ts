import { Type } from '@sinclair/typebox';
import { safePattern } from '../access/patterns';
import type { RequestContext } from '../context/request-context';
import { idList, MAX_LIST_IDS } from '../http/schemas';

export const statesPatternParam = Type.Optional(
    Type.Union([Type.String(), idList()], {
        description: `Pattern such as system.adapter.*, or an array of up to ${MAX_LIST_IDS} ids (JSON); default *`,
    }),
);

/** getStates and getForeignStates: a dictionary id → state (null where only the object exists). */
export async function readStatesByPattern(
    ctx: RequestContext,
    pattern: string | string[] | undefined,
): Promise<Record<string, ioBroker.State | null>> {
    const states = await ctx.data.getStates(Array.isArray(pattern) ? pattern : safePattern('pattern', pattern || '*'));
    return ctx.data.visibleStates(states ?? {}, Array.isArray(pattern));
}
