import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command';
import { metaIdParam, refuseUnsafeNames, unlinkRecursive } from '../src/lib/files';
import { NoResults } from '../src/lib/schemas';

export default defineCommand({
    name: 'deleteFolder',
    summary: 'Delete a folder with everything in it (same as unlink)',
    params: Type.Object({
        adapter: metaIdParam,
        name: Type.String({ description: 'Folder path inside the meta object, e.g. main/old' }),
    }),
    permission: { type: 'file', operation: 'delete' },
    effect: 'write',
    envelope: 'results',
    result: NoResults,
    errors: [404],
    async handler({ adapter, name }, ctx) {
        refuseUnsafeNames({ name });
        await unlinkRecursive(ctx, adapter, name);
        return [];
    },
});
