import { Type } from '@sinclair/typebox';
import { HttpError } from '../http/http-error';
import { readStoredFile, refuseUnsafeNames, unlinkRecursive } from '../files/files';
import { defineRoute, type RouteRequest } from '../routing/route';
import { Reply } from '../http/send';
import { json } from '../http/schemas';

const PATH = '/v1/file/:objectId/*';

/** The meta object id and the file name; find-my-way has decoded `%2F` in the name already. */
function fileOf({ params }: RouteRequest): { objectId: string; fileName: string } {
    const fileName = params['*'];
    refuseUnsafeNames({ fileName });
    return { objectId: params.objectId, fileName };
}

export const readFileRoute = defineRoute({
    method: 'GET',
    path: PATH,
    wildcard: 'fileName',
    summary: 'Download a file of a meta object (raw bytes, Content-Type from the stored type); the name may contain /',
    tag: 'file',
    permission: { type: 'file', operation: 'read' },
    responses: {
        200: {
            description: 'The bytes, with the stored Content-Type',
            content: { '*/*': Type.String({ format: 'binary' }) },
        },
    },
    errors: [404],
    conditional: 'read',
    async handler(req, ctx) {
        const { objectId, fileName } = fileOf(req);
        const file = await readStoredFile(ctx.data, objectId, fileName, { objectId, fileName });
        // text comes back from js-controller as a string; 4.0.2 (Express) sent it as UTF-8
        const type = typeof file.data === 'string' ? `${file.mimeType}; charset=utf-8` : file.mimeType;
        // js-controller's read answers no time; the bytes are hashed (docs/en/conditional-requests.md)
        return Reply.untrusted(file.data, type).validated('body');
    },
});

export const writeFileRoute = defineRoute({
    method: 'POST',
    path: PATH,
    wildcard: 'fileName',
    summary:
        'Upload a file: multipart/form-data with the field "file", or the raw bytes as body; creates or overwrites it',
    tag: 'file',
    permission: { type: 'file', operation: 'write' },
    responses: { 200: json(Type.Object({ success: Type.Literal(true) }), 'Stored') },
    body: 'upload',
    async handler(req, ctx) {
        const { objectId, fileName } = fileOf(req);
        if (!Buffer.isBuffer(req.body)) {
            throw new HttpError('INVALID_PARAMS', 'No file provided.');
        }
        await ctx.data.writeFile(objectId, fileName, req.body, {}, { objectId, fileName });
        return { success: true };
    },
});

export const deleteFileRoute = defineRoute({
    method: 'DELETE',
    path: PATH,
    wildcard: 'fileName',
    summary: 'Delete a file, or a folder with everything in it',
    tag: 'file',
    permission: { type: 'file', operation: 'delete' },
    responses: { 200: json(Type.Object({ success: Type.Literal(true) }), 'Deleted') },
    errors: [404],
    async handler(req, ctx) {
        const { objectId, fileName } = fileOf(req);
        if (!(await unlinkRecursive(ctx.data, objectId, fileName, { objectId, fileName }))) {
            throw new HttpError('NOT_FOUND', 'Not exists', { context: { objectId, fileName } });
        }
        return { success: true };
    },
});
