import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';
import { metaIdParam, refuseUnsafeNames, unlinkRecursive } from '../src/files/files';
import { NoResults } from '../src/http/schemas';

export default defineCommand({
    name: 'unlink',
    aliases: ['deleteFolder'],
    summary: 'Delete a file, or a folder with everything in it (a missing one is no error)',
    params: Type.Object({
        adapter: metaIdParam,
        name: Type.String({ description: 'File or folder path inside the meta object, e.g. main/old' }),
    }),
    permission: { type: 'file', operation: 'delete' },
    effect: 'write',
    envelope: 'results',
    result: NoResults,
    errors: [404],
    async handler({ adapter, name }, ctx) {
        refuseUnsafeNames({ name });
        await unlinkRecursive(ctx.data, adapter, name);
        return [];
    },
});
