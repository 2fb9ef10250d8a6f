import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';

export default defineCommand({
    name: 'extendObject',
    summary: 'Merge properties into an object (creates it when absent)',
    params: Type.Object({
        id: Type.String({ description: 'Object id' }),
        obj: Type.Object(
            {},
            { additionalProperties: true, description: 'Partial object as JSON, e.g. {"common":{"name":"x"}}' },
        ),
    }),
    permission: { type: 'object', operation: 'write' },
    effect: 'write',
    envelope: 'result',
    result: Type.Object({ id: Type.String() }, { additionalProperties: true }),
    adminOnly: true,
    async handler({ id, obj }, { data }) {
        return data.extendObject(id, obj);
    },
});
