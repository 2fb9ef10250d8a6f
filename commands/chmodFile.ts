import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';
import { HttpError } from '../src/http/http-error';
import { FILE_CHANGE, fileChangeParams, fileMode, fileModeParam, refuseUnsafeNames } from '../src/files/files';
import { opaque } from '../src/http/schemas';

export default defineCommand({
    name: 'chmodFile',
    summary: 'Change the permissions of a file, a folder or a pattern such as main/*; answers the changed files',
    params: fileChangeParams(
        Type.Object({ mode: Type.Optional(fileModeParam) }, { description: 'JSON, e.g. {"mode":"644"}' }),
    ),
    ...FILE_CHANGE,
    envelope: 'result',
    result: Type.Optional(opaque('The changed files, as js-controller lists them')),
    async handler({ adapter, fileName, options }, ctx) {
        if (options?.mode === undefined) {
            throw new HttpError('INVALID_PARAMS', 'no options');
        }
        refuseUnsafeNames({ fileName });
        // only the mode is taken from the client: other keys would override the caller's ACL
        return ctx.data.chmodFile(adapter, fileName, fileMode(options.mode));
    },
});
