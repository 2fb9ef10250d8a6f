import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';
import { refuseUnsafeNames } from '../src/files/files';

export default defineCommand({
    name: 'readDir',
    summary: 'List a folder: files with size and ACL, sub-folders with isDir (adapter empty: all meta objects)',
    params: Type.Object({
        adapter: Type.String({
            description: 'Id of the meta object, e.g. vis.0; empty lists the ids of all meta objects with files',
        }),
        dirName: Type.String({ description: 'Folder path inside the meta object; empty for its top level' }),
        options: Type.Optional(
            Type.Object({}, { additionalProperties: true, description: 'Ignored, accepted for old clients' }),
        ),
    }),
    permission: { type: 'file', operation: 'list' },
    effect: 'read',
    envelope: 'result',
    result: Type.Array(Type.Object({ file: Type.String(), isDir: Type.Boolean() }, { additionalProperties: true })),
    errors: [404],
    async handler({ adapter, dirName }, ctx) {
        refuseUnsafeNames({ dirName });
        // without a meta object, the entries are meta objects: only those the caller may read
        return ctx.data.readVisibleDir(adapter, dirName);
    },
});
