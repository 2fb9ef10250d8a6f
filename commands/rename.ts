import { defineCommand } from '../src/command-runtime/command';
import { RENAMING, refuseUnsafeNames, renameRecursive } from '../src/files/files';

export default defineCommand({
    name: 'rename',
    summary: 'Rename or move a file or a folder with everything in it (a missing one is no error)',
    ...RENAMING,
    async handler({ adapter, oldName, newName }, ctx) {
        refuseUnsafeNames({ oldName, newName });
        await renameRecursive(ctx.data, adapter, oldName, newName);
        return [];
    },
});
