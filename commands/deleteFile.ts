import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';
import { metaIdParam, refuseUnsafeNames } from '../src/files/files';

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
    result: Type.Optional(
        Type.Array(Type.Object({ file: Type.String(), path: Type.String() }, { additionalProperties: true }), {
            description: 'What was deleted',
        }),
    ),
    errors: [404],
    async handler({ adapter, name }, ctx) {
        refuseUnsafeNames({ name });
        // a file answers nothing, so the envelope is {"error":null} as in 4.0.2
        return await ctx.data.unlink(adapter, name);
    },
});
