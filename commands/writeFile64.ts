import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';
import { HttpError } from '../src/http/http-error';
import { fileMode, fileModeParam, metaIdParam, refuseUnsafeNames } from '../src/files/files';
import { NoResults } from '../src/http/schemas';

export default defineCommand({
    name: 'writeFile64',
    summary: 'Write a file from base64 data (creates or overwrites it)',
    params: Type.Object({
        adapter: metaIdParam,
        fileName: Type.String({ description: 'Path inside the meta object, e.g. main/picture.png' }),
        data64: Type.String({ pattern: '^[A-Za-z0-9+/=_\\-\\s]*$', description: 'The content, base64-encoded' }),
        options: Type.Optional(
            Type.Object({ mode: Type.Optional(fileModeParam) }, { description: 'JSON, e.g. {"mode":"644"}' }),
        ),
    }),
    permission: { type: 'file', operation: 'write' },
    effect: 'write',
    envelope: 'results',
    result: NoResults,
    errors: [404],
    async handler({ adapter, fileName, data64, options }, ctx) {
        if (!data64) {
            throw new HttpError('INVALID_PARAMS', 'No data provided');
        }
        refuseUnsafeNames({ fileName });
        const mode = options?.mode === undefined ? undefined : fileMode(options.mode);
        await ctx.data.writeFile(adapter, fileName, Buffer.from(data64, 'base64'), { mode });
        return [];
    },
});
