import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';
import { HttpError } from '../src/http/http-error';
import { fileMode, fileModeParam, metaIdParam, refuseUnsafeNames } from '../src/files/files';
import { opaque } from '../src/http/schemas';

export default defineCommand({
    name: 'chmodFile',
    summary: 'Change the permissions of a file, a folder or a pattern such as main/*; answers the changed files',
    params: Type.Object({
        adapter: metaIdParam,
        fileName: Type.String({ description: 'File, folder or pattern inside the meta object, e.g. main/*' }),
        options: Type.Optional(Type.Object({ mode: Type.Optional(fileModeParam) }, { description: 'JSON, e.g. {"mode":"644"}' })),
    }),
    permission: { type: 'file', operation: 'write' },
    effect: 'write',
    envelope: 'result',
    result: Type.Optional(opaque('The changed files, as js-controller lists them')),
    errors: [404],
    async handler({ adapter, fileName, options }, ctx) {
        if (options?.mode === undefined) {
            throw new HttpError('INVALID_PARAMS', 'no options');
        }
        refuseUnsafeNames({ fileName });
        // only the mode is taken from the client: other keys would override the caller's ACL
        return ctx.data.chmodFile(adapter, fileName, fileMode(options.mode));
    },
});
