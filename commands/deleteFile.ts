import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command';
import { metaIdParam, refuseUnsafeNames } from '../src/lib/files';

export default defineCommand({
    name: 'deleteFile',
    summary: 'Delete one file (a folder: js-controller deletes it with its content and lists what it deleted)',
    params: Type.Object({
        adapter: metaIdParam,
        name: Type.String({ description: 'File path inside the meta object, e.g. main/old.json' }),
    }),
    permission: { type: 'file', operation: 'delete' },
    effect: 'write',
    envelope: 'result',
    async handler({ adapter, name }, ctx) {
        refuseUnsafeNames({ name });
        // a file answers nothing, so the envelope is {"error":null} as in 4.0.2
        return (await ctx.storage.unlinkAsync(adapter, name, ctx.callOptions)) as { file: string; path: string }[] | undefined;
    },
});
