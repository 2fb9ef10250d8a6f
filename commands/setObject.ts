import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';

export default defineCommand({
    name: 'setObject',
    summary: 'Create or overwrite an object',
    params: Type.Object({
        id: Type.String({ description: 'Object id' }),
        obj: Type.Object(
            { type: Type.String(), common: Type.Object({}, { additionalProperties: true }) },
            {
                additionalProperties: true,
                description: 'The object as JSON, e.g. {"type":"state","common":{...},"native":{}}',
            },
        ),
    }),
    permission: { type: 'object', operation: 'write' },
    effect: 'write',
    envelope: 'result',
    result: Type.Object({ id: Type.String() }),
    async handler({ id, obj }, { data }) {
        await data.setObject(id, obj as unknown as ioBroker.SettableObject);
        return { id };
    },
});
