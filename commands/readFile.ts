import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';
import { FILE_READING, readFileParams, readRequest, readStoredFile, toBinaryBody } from '../src/files/files';
import { FreeObject, tuple } from '../src/http/schemas';

export default defineCommand({
    name: 'readFile',
    summary: 'Read a file: [content, mimeType], or with binary=true the raw bytes',
    params: readFileParams,
    ...FILE_READING,
    result: tuple(
        [
            Type.Union([Type.String(), FreeObject], {
                description: 'content: text, or a binary file as Buffer JSON {type, data}',
            }),
            Type.String({ description: 'MIME type' }),
        ],
        1,
        '[content, mimeType]',
    ),
    async handler({ adapter, fileName, binary }, ctx) {
        const request = readRequest(fileName, binary);
        const file = await readStoredFile(ctx.data, adapter, request.fileName);
        return request.binary ? toBinaryBody(file) : [file.data, file.mimeType];
    },
});
