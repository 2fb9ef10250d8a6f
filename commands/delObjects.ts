import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';
import { assertSafePattern } from '../src/access/patterns';
import { NoResults } from '../src/http/schemas';

export default defineCommand({
    name: 'delObjects',
    summary: 'Delete an object and everything below it (objects marked dontDelete stay)',
    params: Type.Object({
        id: Type.String({ minLength: 1, description: 'Object id' }),
        options: Type.Optional(
            Type.Object({}, { additionalProperties: true, description: 'Ignored; always recursive' }),
        ),
    }),
    permission: { type: 'object', operation: 'delete' },
    effect: 'write',
    envelope: 'results',
    result: NoResults,
    adminOnly: true,
    recursive: () => true,
    async handler({ id }, { data }) {
        assertSafePattern('id', id);
        await data.delObject(id, true);
        return [];
    },
});
