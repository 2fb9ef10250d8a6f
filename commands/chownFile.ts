import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';
import { HttpError } from '../src/http/http-error';
import { FILE_CHANGE, fileChangeParams, refuseUnsafeNames } from '../src/files/files';
import { opaque } from '../src/http/schemas';

export default defineCommand({
    name: 'chownFile',
    summary: 'Change owner and owner group of a file, a folder or a pattern; answers the changed files',
    params: fileChangeParams(
        Type.Object(
            { owner: Type.Optional(Type.String()), ownerGroup: Type.Optional(Type.String()) },
            {
                description:
                    'JSON, e.g. {"owner":"system.user.admin","ownerGroup":"system.group.administrator"}; owner defaults to the caller',
            },
        ),
    ),
    ...FILE_CHANGE,
    envelope: 'result',
    result: Type.Optional(opaque('The changed files, as js-controller lists them')),
    async handler({ adapter, fileName, options }, ctx) {
        if (!options) {
            throw new HttpError('INVALID_PARAMS', 'no options');
        }
        refuseUnsafeNames({ fileName });
        // only owner and group are taken from the client: other keys would override the caller's ACL
        return ctx.data.chownFile(adapter, fileName, { owner: options.owner, ownerGroup: options.ownerGroup });
    },
});
