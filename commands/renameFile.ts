import { defineCommand } from '../src/command-runtime/command';
import { RENAMING, refuseUnsafeNames } from '../src/files/files';

export default defineCommand({
    name: 'renameFile',
    summary: 'Rename or move one file (js-controller moves a folder as a whole)',
    ...RENAMING,
    async handler({ adapter, oldName, newName }, ctx) {
        refuseUnsafeNames({ oldName, newName });
        // as js-controller does it: a missing file is an error here, unlike rename
        await ctx.data.rename(adapter, oldName, newName);
        return [];
    },
});
