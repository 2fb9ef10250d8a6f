import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';
import {
    FILE_READING,
    readFileParams,
    readRequest,
    readStoredFile,
    toBinaryBody,
    type StoredFile,
} from '../src/files/files';
import { tuple } from '../src/http/schemas';

const URI_ENCODED_TYPES = new Set(['application/json', 'application/json5']);

/** 4.0.2 URI-encodes JSON and JSON5 before base64; its clients decode them that way. */
function toBase64(file: StoredFile, fileName: string): string {
    if (URI_ENCODED_TYPES.has(file.mimeType) || fileName.toLowerCase().endsWith('.json5')) {
        return Buffer.from(encodeURIComponent(file.data.toString())).toString('base64');
    }
    return (Buffer.isBuffer(file.data) ? file.data : Buffer.from(file.data)).toString('base64');
}

export default defineCommand({
    name: 'readFile64',
    summary: 'Read a file as [base64, mimeType] (JSON files URI-encoded first), or with binary=true the raw bytes',
    params: readFileParams,
    ...FILE_READING,
    result: tuple(
        [Type.String({ description: 'base64 content' }), Type.String({ description: 'MIME type' })],
        1,
        '[base64, mimeType]',
    ),
    async handler({ adapter, fileName, binary }, ctx) {
        const request = readRequest(fileName, binary);
        const file = await readStoredFile(ctx.data, adapter, request.fileName);
        return request.binary ? toBinaryBody(file) : [toBase64(file, request.fileName), file.mimeType];
    },
});
