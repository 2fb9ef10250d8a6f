import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';
import { metaIdParam, refuseUnsafeNames } from '../src/files/files';
import { NoResults } from '../src/http/schemas';

export default defineCommand({
    name: 'mkdir',
    summary: 'Create a folder (stored as a hidden _data.json entry)',
    params: Type.Object({
        adapter: metaIdParam,
        dirName: Type.String({ description: 'Folder path inside the meta object, e.g. main/images' }),
    }),
    permission: { type: 'file', operation: 'write' },
    effect: 'write',
    envelope: 'results',
    result: NoResults,
    errors: [404],
    async handler({ adapter, dirName }, ctx) {
        refuseUnsafeNames({ dirName });
        await ctx.data.mkdir(adapter, dirName);
        return [];
    },
});
