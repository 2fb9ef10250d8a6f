import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';
import { metaIdParam, refuseUnsafeNames } from '../src/files/files';

export default defineCommand({
    name: 'fileExists',
    summary: 'Whether a file exists (true or false; folders are not files)',
    params: Type.Object({
        adapter: metaIdParam,
        fileName: Type.String({ description: 'File path inside the meta object, e.g. main/vis-views.json' }),
    }),
    permission: { type: 'file', operation: 'read' },
    effect: 'read',
    envelope: 'result',
    result: Type.Boolean(),
    errors: [404],
    async handler({ adapter, fileName }, ctx) {
        refuseUnsafeNames({ fileName });
        return ctx.data.fileExists(adapter, fileName);
    },
});
