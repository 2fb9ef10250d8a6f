import { Type } from '@sinclair/typebox';
import { refuseUnsafeNames } from '../files/files';
import type { RequestContext } from '../context/request-context';
import { defineRoute, type RouteRequest } from '../routing/route';
import { FreeObject, json } from '../http/schemas';

const LIST = { type: 'file', operation: 'list' } as const;

const FOLDER = Type.Array(
    Type.Object(
        {
            file: Type.String(),
            isDir: Type.Boolean(),
            stats: Type.Optional(FreeObject),
            acl: Type.Optional(FreeObject),
        },
        { additionalProperties: true },
    ),
);

/** js-controller's entries unchanged, as 4.0.2 answered them; a missing folder lists as []. */
async function listFolder({ params }: RouteRequest, ctx: RequestContext): Promise<unknown> {
    const objectId = params.objectId;
    const dirName = params['*'] ?? '';
    refuseUnsafeNames({ dirName });
    return ctx.data.readDir(objectId, dirName, { objectId, dirName });
}

export const listTopFolderRoute = defineRoute({
    method: 'GET',
    path: '/v1/dir/:objectId',
    summary: 'List the top folder of a meta object: [{file, stats, isDir, acl, modifiedAt}]',
    tag: 'file',
    permission: LIST,
    responses: { 200: json(FOLDER, 'The entries of the folder') },
    errors: [404],
    handler: listFolder,
});

export const listFolderRoute = defineRoute({
    method: 'GET',
    path: '/v1/dir/:objectId/*',
    wildcard: 'dirName',
    summary: 'List a folder of a meta object (the path may contain /): [{file, stats, isDir, acl, modifiedAt}]',
    tag: 'file',
    permission: LIST,
    responses: { 200: json(FOLDER, 'The entries of the folder') },
    errors: [404],
    handler: listFolder,
});
