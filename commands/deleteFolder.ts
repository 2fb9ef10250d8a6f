import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command';
import { metaIdParam, refuseUnsafeNames, unlinkRecursive } from '../src/lib/files';

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
    async handler({ adapter, name }, ctx) {
        refuseUnsafeNames({ name });
        await unlinkRecursive(ctx, adapter, name);
        return [];
    },
});
