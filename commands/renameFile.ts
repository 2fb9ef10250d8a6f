import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';
import { metaIdParam, refuseUnsafeNames } from '../src/files/files';
import { NoResults } from '../src/http/schemas';

export default defineCommand({
    name: 'renameFile',
    summary: 'Rename or move one file (js-controller moves a folder as a whole)',
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
        await ctx.data.rename(adapter, oldName, newName);
        return [];
    },
});
