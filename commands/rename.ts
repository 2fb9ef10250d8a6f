import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';
import { metaIdParam, refuseUnsafeNames, renameRecursive } from '../src/files/files';
import { NoResults } from '../src/http/schemas';

export default defineCommand({
    name: 'rename',
    summary: 'Rename or move a file or a folder with everything in it (a missing one is no error)',
    params: Type.Object({
        adapter: metaIdParam,
        oldName: Type.String({ description: 'Current path inside the meta object' }),
        newName: Type.String({ description: 'New path inside the meta object' }),
    }),
    permission: { type: 'file', operation: 'write' },
    effect: 'write',
    envelope: 'results',
    result: NoResults,
    errors: [404],
    async handler({ adapter, oldName, newName }, ctx) {
        refuseUnsafeNames({ oldName, newName });
        await renameRecursive(ctx.data, adapter, oldName, newName);
        return [];
    },
});
