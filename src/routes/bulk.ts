import { Type } from '@sinclair/typebox';
import {
    assertBulkSize,
    bulkEntries,
    MAX_BULK_IDS,
    readStatesById,
    stateFields,
    writeStates,
} from '../states/bulk-states';
import { STATE_FIELDS } from '../objects/listing-pages';
import { defineRoute } from '../routing/route';
import { Reply } from '../http/send';

const perId = Type.Record(Type.String(), Type.Object({}, { additionalProperties: true }), {
    description: 'Per id: the written {val, ack} or the state, or {error, status} for an id that failed',
});

export const writeStatesRoute = defineRoute({
    method: 'PATCH',
    path: '/v1/states',
    scoped: 'ids',
    summary: `Write up to ${MAX_BULK_IDS} states at once: {"<id>": <value or {val, ack, ...}>}; 200 when all succeeded, 207 when some failed`,
    tag: 'state',
    permission: { type: 'state', operation: 'write' },
    body: 'json',
    requestBody: Type.Record(Type.String(), Type.Unknown(), {
        description: 'id → value, or id → {val, ack, ts, q, from, c, expire}',
    }),
    responses: {
        200: { description: 'Every id written', content: { 'application/json': perId } },
        207: { description: 'Some ids failed; the others were written', content: { 'application/json': perId } },
    },
    async handler({ body }, ctx) {
        const { answer, failed } = await writeStates(ctx, bulkEntries(body, 'The body'));
        return Reply.json(answer, failed ? 207 : 200);
    },
});

export const queryStatesRoute = defineRoute({
    method: 'POST',
    path: '/v1/states/query',
    scoped: 'ids',
    summary: `Read the states of a list of up to ${MAX_BULK_IDS} ids, optionally only some fields: {"ids": [...], "fields": ["val", "ack"]}`,
    tag: 'state',
    permission: { type: 'state', operation: 'read' },
    body: 'json',
    requestBody: Type.Object({
        // the size limit is a 413 (as for bulk writes), so it is described rather than a maxItems
        ids: Type.Array(Type.String({ minLength: 1 }), { description: `Up to ${MAX_BULK_IDS} ids` }),
        fields: Type.Optional(Type.Array(Type.Union(STATE_FIELDS.map(f => Type.Literal(f))))),
    }),
    responses: {
        200: {
            description: 'id → state (or its fields), or {error, status} for an unknown or forbidden id',
            content: { 'application/json': perId },
        },
    },
    async handler({ body }, ctx) {
        assertBulkSize(body.ids.length);
        return readStatesById(ctx, body.ids, stateFields(body.fields));
    },
});
