import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';
import { bulkEntries, MAX_BULK_IDS, writeStates } from '../src/states/bulk-states';
import { anyJson, dictionary } from '../src/http/schemas';
import { Reply } from '../src/http/send';

export default defineCommand({
    name: 'setStates',
    summary: `Write up to ${MAX_BULK_IDS} states at once, as PATCH /v1/states: result per id, status 207 when some failed`,
    params: Type.Object({
        states: anyJson('{"<id>": <value or {val, ack, ...}>} (JSON text in a GET query)'),
    }),
    permission: { type: 'state', operation: 'write' },
    effect: 'write',
    envelope: 'raw',
    multiStatus: true,
    result: Type.Object({
        error: Type.Null(),
        result: dictionary(
            Type.Union([
                Type.Object({ val: Type.Unknown(), ack: Type.Boolean() }, { additionalProperties: true }),
                Type.Object({ error: Type.String(), status: Type.Number() }),
            ]),
            'id → the written state, or its error',
        ),
    }),
    async handler({ states }, ctx) {
        const { answer, failed } = await writeStates(ctx, bulkEntries(states, 'states'));
        return Reply.json({ error: null, result: answer }, failed ? 207 : 200);
    },
});
