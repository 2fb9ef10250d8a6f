import { Type } from '@sinclair/typebox';
import { safePattern } from '../access/patterns';
import { isAllowed } from '../access/rules';
import { HttpError } from '../http/http-error';
import { MAX_WAIT_MS } from '../states/ack-waiter';
import { convertText } from '../states/state-value';
import { listingParams, listingReply, pageParams } from '../objects/listing-pages';
import { stateSource } from '../objects/listing-sources';
import { peekStateId, resolveStateId, splitIds } from '../states/state-id';
import {
    patchState,
    peekStateAnswer,
    peekStateEntry,
    readStateEntry,
    stateCommon,
    toggleState,
    writeState,
    type StateRead,
} from '../states/states';
import type { Query } from '../http/query';
import { writingContext, type RequestContext } from '../context/request-context';
import { dictionary, json, ListedState, StateEntrySchema } from '../http/schemas';
import { defineRoute } from '../routing/route';
import { Reply } from '../http/send';
import { preconditionOf } from '../http/conditional';
import { stateValidator } from '../states/state-tag';

const READ = { type: 'state', operation: 'read' } as const;
const WRITE = { type: 'state', operation: 'write' } as const;

function assertWrite(ctx: RequestContext): void {
    if (!isAllowed(ctx.acl, WRITE)) {
        throw new HttpError('FORBIDDEN', 'permissionError');
    }
}

const timeoutParam = Type.Optional(
    Type.Integer({
        minimum: 0,
        maximum: MAX_WAIT_MS,
        'x-clamp': true,
        description:
            'Wait up to this many ms for the acknowledged value (larger values are capped at 60000, as in 4.0.2); 501 on timeout',
    }),
);

const timeoutOf = (input: { timeout?: number }): number => input.timeout ?? 0;

export const readState = defineRoute({
    method: 'GET',
    path: '/v1/state/:stateId',
    scoped: 'ids',
    summary: 'Read one or more states (comma-separated ids or names); with ?value= write, with ?toggle toggle',
    tag: 'state',
    permission: READ,
    writesOnGet: query => 'value' in query || 'toggle' in query,
    responses: {
        200: json(
            Type.Union([StateEntrySchema, Type.Array(StateEntrySchema)]),
            'The state with its id (a list for several ids); after ?value= or ?toggle what was written',
        ),
    },
    errors: [404, 501],
    conditional: 'read',
    query: Type.Object({
        withInfo: Type.Optional(Type.Boolean({ description: 'Merge the object into each answer' })),
        value: Type.Optional(
            Type.String({ description: 'Write this value (converted by the state type) to the first id' }),
        ),
        ack: Type.Optional(Type.Boolean({ description: 'With value: write as acknowledged' })),
        toggle: Type.Optional(Type.String({ description: 'Present: toggle the first id' })),
        timeout: timeoutParam,
    }),
    handler({ params, query, input }, ctx) {
        const { stateId } = params;
        if (!stateId.includes(',') && !('value' in query) && !('toggle' in query)) {
            if (input.withInfo !== true) {
                const answer = peekStateAnswer(ctx, stateId.trim());
                if (answer) {
                    return Reply.jsonText(answer.text).validated(answer.validator);
                }
            } else {
                const hit = peekStateEntry(ctx, stateId.trim(), true);
                if (hit) {
                    return entryReply(hit, true);
                }
            }
        }
        return readStates(params, query, input, ctx);
    },
});

/**
 * One state read, with its version: from the state's fields; with `withInfo` the object is part of
 * the answer, so the bytes are tagged instead.
 */
function entryReply({ entry, state }: StateRead, withInfo: boolean): Reply {
    return Reply.json(entry).validated(withInfo ? 'body' : stateValidator(state));
}

/** `value` and `toggle` count by their presence, as in 4.0.2 (`?toggle`, `?value=` writes an empty text). */
async function readStates(
    params: { stateId: string },
    query: Query,
    input: { withInfo?: boolean; ack?: boolean; timeout?: number },
    ctx: RequestContext,
): Promise<unknown> {
    const ids = splitIds(params.stateId);
    if (!ids.length) {
        throw new HttpError('NOT_FOUND', 'ID not found', { context: { id: params.stateId } });
    }
    const timeoutMs = timeoutOf(input);
    if ('value' in query) {
        assertWrite(ctx);
        const resolved = await resolveStateId(writingContext(ctx), ids[0]);
        const val = convertText(query.value ?? '', stateCommon(resolved.obj)?.type, resolved.id) as ioBroker.StateValue;
        const result = await writeState(ctx, resolved.id, { val, ack: input.ack === true }, timeoutMs);
        return timeoutMs > 0 ? result : { val, id: resolved.id };
    }
    if ('toggle' in query) {
        assertWrite(ctx);
        return toggleState(ctx, await resolveStateId(writingContext(ctx), ids[0]), timeoutMs);
    }
    const withInfo = input.withInfo === true;
    if (ids.length === 1) {
        return entryReply(await readStateEntry(ctx, ids[0], withInfo), withInfo);
    }
    return Reply.json(
        (await Promise.all(ids.map(id => readStateEntry(ctx, id, withInfo)))).map(read => read.entry),
    ).validated('body');
}

export const updateState = defineRoute({
    method: 'PATCH',
    path: '/v1/state/:stateId',
    scoped: 'ids',
    summary: 'Write a state from a JSON body {val, ack, ...}',
    tag: 'state',
    permission: WRITE,
    responses: { 200: json(StateEntrySchema, 'What was written, with the id; with timeout the acknowledged state') },
    errors: [404, 501],
    conditional: 'write',
    body: 'json',
    query: Type.Object({ timeout: timeoutParam }),
    requestBody: Type.Object({
        val: Type.Optional(Type.Unknown()),
        ack: Type.Optional(Type.Boolean()),
        ts: Type.Optional(Type.Number()),
        q: Type.Optional(Type.Number()),
        expire: Type.Optional(Type.Number()),
        c: Type.Optional(Type.String()),
        from: Type.Optional(Type.String()),
    }),
    handler({ params, input, body, headers }, ctx) {
        return patchState(
            ctx,
            splitIds(params.stateId)[0] ?? params.stateId,
            body,
            timeoutOf(input),
            preconditionOf(headers),
        );
    },
});

export const toggleStateRoute = defineRoute({
    method: 'GET',
    path: '/v1/state/:stateId/toggle',
    scoped: 'ids',
    summary: 'Toggle a boolean, a number with min/max, or an on/off string',
    tag: 'state',
    permission: WRITE,
    writesOnGet: true,
    responses: { 200: json(StateEntrySchema, 'The written value with the id; with timeout the acknowledged state') },
    errors: [404, 422, 501],
    query: Type.Object({ timeout: timeoutParam }),
    async handler({ params, input }, ctx) {
        const id = splitIds(params.stateId)[0] ?? params.stateId;
        return toggleState(ctx, await resolveStateId(writingContext(ctx), id), timeoutOf(input));
    },
});

function plainReply(id: string, state: ioBroker.State | null, input: { extraPlain?: boolean }): Reply {
    if (!state) {
        throw new HttpError('NOT_FOUND', 'State not found', { context: { id } });
    }
    const text = input.extraPlain === true ? String(state.val) : (JSON.stringify(state.val) ?? 'null');
    // 4.0.2 clients got text/html; text/plain is what its docs promised and what is safe
    return Reply.text(text, 'text/plain; charset=utf-8').validated(stateValidator(state));
}

export const plainState = defineRoute({
    method: 'GET',
    path: '/v1/state/:stateId/plain',
    scoped: 'ids',
    summary: 'Read only the value, as JSON text (or as plain text with extraPlain=true)',
    tag: 'state',
    permission: READ,
    responses: { 200: { description: 'The value as text', content: { 'text/plain': Type.String() } } },
    errors: [404],
    conditional: 'read',
    query: Type.Object({
        extraPlain: Type.Optional(Type.Boolean({ description: 'String(val) instead of JSON.stringify(val)' })),
    }),
    handler({ params, input }, ctx) {
        const idOrName = splitIds(params.stateId)[0] ?? params.stateId;
        const resolved = peekStateId(ctx, idOrName);
        const hit = resolved && ctx.data.peekState(resolved.id);
        if (hit) {
            return plainReply(resolved.id, hit, input);
        }
        return (async () => {
            const { id } = await resolveStateId(ctx, idOrName);
            return plainReply(id, await ctx.data.readState(id), input);
        })();
    },
});

export const listStates = defineRoute({
    method: 'GET',
    path: '/v1/states',
    scoped: 'ids',
    summary: 'All states matching a pattern, as a dictionary id → state',
    tag: 'state',
    permission: { type: 'state', operation: 'list' },
    conditional: 'read',
    responses: {
        200: json(
            dictionary(
                Type.Union([ListedState, Type.Null()]),
                'id → state (only the asked fields with fields); null for an id without a value',
            ),
            'The states; a page when limit is given, the next one in the Link header',
        ),
    },
    query: Type.Object({
        filter: Type.Optional(Type.String({ description: 'Pattern, e.g. system.adapter.*; default *' })),
        ...pageParams('state'),
    }),
    handler({ input, url }, ctx) {
        const filter = safePattern('filter', input.filter || '*');
        // the admin's whole listings come from a coherent cache: the same answer for all admin requests
        return listingReply(
            ctx,
            `states\n${filter}`,
            listingParams(input, 'state'),
            url,
            stateSource(ctx.data, filter),
        );
    },
});
