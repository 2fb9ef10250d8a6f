import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';
import { ObjectSchema } from '../src/http/schemas';

export default defineCommand({
    name: 'getObject',
    summary: 'Read one object (null if it does not exist)',
    params: Type.Object({ id: Type.String({ description: 'Object id, e.g. system.config' }) }),
    permission: { type: 'object', operation: 'read' },
    effect: 'read',
    envelope: 'result',
    result: Type.Union([ObjectSchema, Type.Null()]),
    async handler({ id }, ctx) {
        return ctx.data.readObject(id);
    },
});
