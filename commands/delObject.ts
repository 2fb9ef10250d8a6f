import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';
import { assertSafePattern } from '../src/access/patterns';
import { NoResults } from '../src/http/schemas';

export default defineCommand({
    name: 'delObject',
    summary: 'Delete an object (with options {"recursive":true} also everything below it)',
    params: Type.Object({
        id: Type.String({ description: 'Object id' }),
        options: Type.Optional(
            Type.Object({ recursive: Type.Optional(Type.Boolean()) }, { description: 'JSON, e.g. {"recursive":true}' }),
        ),
    }),
    permission: { type: 'object', operation: 'delete' },
    effect: 'write',
    envelope: 'results',
    result: NoResults,
    recursive: ({ options }) => !!options?.recursive,
    async handler({ id, options }, { data }) {
        if (options?.recursive) {
            assertSafePattern('id', id);
        }
        await data.delObject(id, !!options?.recursive);
        return [];
    },
});
