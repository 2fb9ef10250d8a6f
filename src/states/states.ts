import { assertPrecondition, type Precondition } from '../http/conditional';
import { HttpError } from '../http/http-error';
import { KeyedLock } from '../storage/keyed-lock';
import { stateAnswer, stateTag, type StateAnswer } from './state-tag';
import { writingContext, type RequestContext } from '../context/request-context';
import { writeAndWaitForAck } from './ack-waiter';
import { assertInWriteScope } from '../access/read-checks';
import { peekStateId, resolveStateId, type ResolvedState } from './state-id';
import { convertBodyValue } from './state-value';
import { toggledValue } from './toggle';

/** One entry of `GET /v1/state/:ids` (the state plus `id`, merged with the object for `withInfo`), and the state it came from. */
export interface StateRead {
    entry: Record<string, unknown>;
    /** The stored state as the caches hold it: its validator is made once per version. */
    state: ioBroker.State | null;
}

export async function readStateEntry(ctx: RequestContext, idOrName: string, withInfo: boolean): Promise<StateRead> {
    // the state is read while the object is: a miss costs one round trip instead of two in a row
    const early = ctx.data.earlyState(idOrName);
    const { id, obj } = await resolveStateId(ctx, idOrName);
    if (early && obj && obj._id === idOrName) {
        return stateEntry(id, obj, await ctx.data.readStateOf(obj, early), withInfo);
    }
    return stateEntry(id, obj, await ctx.data.readState(id), withInfo);
}

/** The answer to a read of one state without `withInfo`, from the caches alone; undefined when that needs the DB. */
export function peekStateAnswer(ctx: RequestContext, idOrName: string): StateAnswer | undefined {
    const resolved = peekStateId(ctx, idOrName);
    const state = resolved && ctx.data.peekState(resolved.id);
    return state ? stateAnswer(resolved.id, state) : undefined;
}

/** `readStateEntry` from the caches alone: the hot path of repeated reads; undefined when that needs the DB. */
export function peekStateEntry(ctx: RequestContext, idOrName: string, withInfo: boolean): StateRead | undefined {
    const resolved = peekStateId(ctx, idOrName);
    const state = resolved && ctx.data.peekState(resolved.id);
    return state === undefined ? undefined : stateEntry(resolved!.id, resolved!.obj, state, withInfo);
}

function stateEntry(
    id: string,
    obj: ioBroker.Object | null,
    state: ioBroker.State | null,
    withInfo: boolean,
): StateRead {
    const entry: Record<string, unknown> = { ...(state ?? {}), id };
    if (withInfo && obj) {
        // 4.0.2 lets the object's fields (from, ts, user) win over the state's
        const { _id, ...rest } = obj as ioBroker.Object & Record<string, unknown>;
        Object.assign(entry, rest, { id: _id });
    }
    return { entry, state };
}

/** The common part of a state object; undefined for no object or another type. */
export function stateCommon(obj: ioBroker.Object | null | undefined): Partial<ioBroker.StateCommon> | undefined {
    return obj?.type === 'state' ? (obj.common as ioBroker.StateCommon) : undefined;
}

/** The fields of a PATCH body as its schema checked them (src/routes/state.ts); `val` is any JSON until converted. */
export interface StatePatch {
    val?: unknown;
    ack?: boolean;
    ts?: number;
    q?: number;
    expire?: number;
    c?: string;
    from?: string;
}

/** One PATCH: the id or name resolved, `val` converted by the state's type, written with the caller's rights (and only if `precondition` holds). */
export async function patchState(
    ctx: RequestContext,
    idOrName: string,
    body: StatePatch,
    timeoutMs: number,
    precondition?: Precondition,
): Promise<Record<string, unknown>> {
    const writing = writingContext(ctx);
    const { id, obj } = peekStateId(writing, idOrName) ?? (await resolveStateId(writing, idOrName));
    // copied with Object.assign: V8 gave each `{ ...body }` copy here a map of its own, and
    // js-controller's reads of a state then missed their inline caches on every write
    const state: StatePatch = Object.assign({}, body);
    if ('val' in state) {
        state.val = convertBodyValue(state.val, stateCommon(obj)?.type, id);
    }
    // checked by the route's body schema; `val` now has the state's type
    return writeState(ctx, id, state as ioBroker.SettableState, timeoutMs, precondition);
}

export interface WriteResult {
    val: unknown;
    id: string;
}

/**
 * Every state write of this process, per id: one with a precondition runs alone, so no other write
 * comes between its check and its write; plain writes run side by side, as js-controller orders them.
 */
const stateWrites = new KeyedLock();

/**
 * Writes a state; with a timeout, answers the acknowledged state instead of the request echo. With
 * a precondition (If-Match / If-None-Match) the write happens only if the stored version matches:
 * the write right first (403), then the read right (403, never the tag), then 412.
 */
export async function writeState(
    ctx: RequestContext,
    id: string,
    state: ioBroker.SettableState,
    timeoutMs: number,
    precondition?: Precondition,
): Promise<Record<string, unknown>> {
    assertInWriteScope(ctx, id);
    if (!precondition && timeoutMs <= 0) {
        // the plain write, most of all: no closures for the cases below
        await stateWrites.run(id, () => ctx.data.setState(id, state, { id }), { shared: true });
        return answerOf(state, id);
    }
    const write = (): Promise<unknown> =>
        stateWrites.run(
            id,
            async () => {
                if (precondition) {
                    await ctx.data.assertMayWriteState(id);
                    await ctx.data.assertMayReadState(id);
                    // straight from js-controller: the cache may not have seen another adapter's write yet
                    const current = await ctx.data.getState(id, { id });
                    assertPrecondition(precondition, current ? stateTag(current) : undefined, { id });
                }
                return ctx.data.setState(id, state, { id });
            },
            { shared: !precondition },
        );
    if (timeoutMs > 0) {
        return { ...(await writeAndWaitForAck(ctx, id, state, timeoutMs, write)), id };
    }
    await write();
    return answerOf(state, id);
}

/** The written state with its id, copied field by field (see `patchState`: a spread gave each copy a map of its own). */
function answerOf(state: ioBroker.SettableState, id: string): Record<string, unknown> {
    const answer: Record<string, unknown> = Object.assign({}, state);
    answer.id = id;
    return answer;
}

export async function toggleState(
    ctx: RequestContext,
    resolved: ResolvedState,
    timeoutMs: number,
): Promise<Record<string, unknown>> {
    const { id, obj } = resolved;
    // before the current value is read: its existence and type are not the token's to learn
    assertInWriteScope(ctx, id);
    const current = await ctx.data.getState(id, { id });
    if (!current) {
        throw new HttpError('NOT_FOUND', 'State not initiated', { context: { id } });
    }
    const val = toggledValue(current.val, stateCommon(obj), id) as ioBroker.StateValue;
    const result = await writeState(ctx, id, { val, ack: false }, timeoutMs);
    return timeoutMs > 0 ? result : { val, id };
}
