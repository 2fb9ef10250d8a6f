import { Type } from '@sinclair/typebox';
import { safePattern } from '../access/patterns';
import { HttpError } from '../http/http-error';
import { mergeObject } from '../objects/object-merge';
import { listingParams, listingReply, pageParams } from '../objects/listing-pages';
import { objectSource } from '../objects/listing-sources';
import { assertInWriteScope } from '../access/read-checks';
import { mayWriteObject } from '../access/write-policy';
import { assertPrecondition, bodyTag, preconditionOf, cachedValueValidator } from '../http/conditional';
import { Reply } from '../http/send';
import { KeyedLock } from '../storage/keyed-lock';
import type { IncomingHttpHeaders } from 'node:http';
import { writingContext, type RequestContext } from '../context/request-context';
import { defineRoute } from '../routing/route';
import { dictionary, json, ListedObject, ObjectSchema, WrittenObjectSchema } from '../http/schemas';

const READ = { type: 'object', operation: 'read' } as const;
const WRITE = { type: 'object', operation: 'write' } as const;

const objectBody = Type.Object(
    { type: Type.String(), common: Type.Object({}), native: Type.Optional(Type.Object({})) },
    { description: 'An ioBroker object', additionalProperties: true },
);

/** The body, a JSON object by its schema; a new object also needs the shape `objectBody` declares. */
function objectFromBody(id: string, obj: Record<string, unknown>, requireShape: boolean): ioBroker.SettableObject {
    if (
        requireShape &&
        (typeof obj.type !== 'string' || !obj.common || typeof obj.common !== 'object' || Array.isArray(obj.common))
    ) {
        throw new HttpError('INVALID_PARAMS', 'An object needs a "type" string and a "common" object', {
            context: { id },
        });
    }
    return obj as unknown as ioBroker.SettableObject;
}

async function readObject(ctx: RequestContext, id: string): Promise<ioBroker.Object | null> {
    return ctx.data.readObject(id, { objectId: id });
}

/** The object about to be written or deleted: a token must have `id` in its write patterns, and may then read it. */
function readForWriting(ctx: RequestContext, id: string): Promise<ioBroker.Object | null> {
    assertInWriteScope(ctx, id, { objectId: id });
    // whole: a merge into an enum keeps the members the caller may not see
    return writingContext(ctx).data.readObject(id, { objectId: id }, true);
}

/** Object writes of these routes, one at a time per id: a precondition and its write see no other write between them. */
const objectWrites = new KeyedLock();

/**
 * Throws 412 unless the request's If-Match / If-None-Match hold for the stored object. The caller's
 * write right comes first (403, not 412); `existing` was read with its read right, so the ETag in
 * the answer is one it may see. The tag is that of the bytes a GET answers the caller.
 */
async function assertObjectPrecondition(
    ctx: RequestContext,
    headers: IncomingHttpHeaders,
    id: string,
    existing: ioBroker.Object | null,
): Promise<void> {
    const precondition = preconditionOf(headers);
    if (!precondition) {
        return;
    }
    if (existing && !mayWriteObject(ctx.acl, id, existing, undefined, ctx.ownerOnly)) {
        throw new HttpError('FORBIDDEN', 'permissionError', { context: { objectId: id } });
    }
    const current = existing ? bodyTag(JSON.stringify(await ctx.data.withVisibleMembers(existing))) : undefined;
    assertPrecondition(precondition, current, { objectId: id });
}

async function writeObject(ctx: RequestContext, id: string, obj: ioBroker.SettableObject): Promise<void> {
    await ctx.data.setObject(id, obj, { objectId: id });
}

function found(obj: ioBroker.Object | null, objectId: string): ioBroker.Object {
    if (!obj) {
        throw new HttpError('NOT_FOUND', 'object not found', { context: { objectId } });
    }
    return obj;
}

export const getObjectRoute = defineRoute({
    method: 'GET',
    path: '/v1/object/:objectId',
    scoped: 'ids',
    summary: 'Read one object',
    tag: 'object',
    permission: READ,
    responses: { 200: json(ObjectSchema, 'The object') },
    errors: [404],
    conditional: 'read',
    handler({ params }, ctx) {
        const hit = ctx.data.peekObject(params.objectId, { objectId: params.objectId });
        // tagged by its bytes (js-controller keeps an object's `ts` when a write names one), once per cached object
        const answer = (obj: ioBroker.Object | null): Reply => {
            const body = found(obj, params.objectId);
            return Reply.json(body).validated(cachedValueValidator(body));
        };
        return hit === undefined ? readObject(ctx, params.objectId).then(answer) : answer(hit);
    },
});

export const createObjectRoute = defineRoute({
    method: 'POST',
    path: '/v1/object/:objectId',
    scoped: 'ids',
    summary: 'Create an object; 409 if it exists',
    tag: 'object',
    permission: WRITE,
    responses: { 200: json(WrittenObjectSchema, 'The object as written') },
    errors: [409],
    conditional: 'create',
    body: 'json',
    requestBody: objectBody,
    async handler(req, ctx) {
        const id = req.params.objectId;
        const obj = objectFromBody(id, req.body, true);
        return objectWrites.run(id, async () => {
            const existing = await readForWriting(ctx, id);
            await assertObjectPrecondition(ctx, req.headers, id, existing);
            if (existing) {
                throw new HttpError('CONFLICT', 'Object already exists', { context: { id } });
            }
            await writeObject(ctx, id, obj);
            return obj;
        });
    },
});

export const updateObjectRoute = defineRoute({
    method: 'PUT',
    path: '/v1/object/:objectId',
    scoped: 'ids',
    summary: 'Merge into an object (null deletes a key), or create it when absent',
    tag: 'object',
    permission: WRITE,
    responses: { 200: json(WrittenObjectSchema, 'The object after the merge') },
    conditional: 'create',
    body: 'json',
    requestBody: Type.Object({}, { additionalProperties: true }),
    async handler(req, ctx) {
        const id = req.params.objectId;
        return objectWrites.run(id, async () => {
            const existing = await readForWriting(ctx, id);
            await assertObjectPrecondition(ctx, req.headers, id, existing);
            if (!existing) {
                const obj = objectFromBody(id, req.body, true);
                await writeObject(ctx, id, obj);
                return obj;
            }
            // a copy: js-controller completes the object it is given, and the cache shares `existing`
            const merged = mergeObject(
                structuredClone(existing) as unknown as Record<string, unknown>,
                objectFromBody(id, req.body, false),
            );
            await writeObject(ctx, id, merged as unknown as ioBroker.SettableObject);
            return ctx.data.withVisibleMembers(merged);
        });
    },
});

export const deleteObjectRoute = defineRoute({
    method: 'DELETE',
    path: '/v1/object/:objectId',
    scoped: 'ids',
    summary: 'Delete one object',
    tag: 'object',
    permission: WRITE,
    responses: { 200: json(Type.Object({}), 'Deleted: an empty object') },
    errors: [404],
    conditional: 'write',
    async handler({ params, headers }, ctx) {
        const id = params.objectId;
        return objectWrites.run(id, async () => {
            const existing = await readForWriting(ctx, id);
            await assertObjectPrecondition(ctx, headers, id, existing);
            if (!existing) {
                throw new HttpError('NOT_FOUND', 'object not found', { context: { objectId: id } });
            }
            await ctx.data.delObject(id, undefined, { objectId: id });
            return {};
        });
    },
});

export const listObjectsRoute = defineRoute({
    method: 'GET',
    path: '/v1/objects',
    scoped: 'ids',
    summary: 'All objects matching a pattern, each with its enums; without type only state objects',
    tag: 'object',
    permission: READ,
    responses: {
        200: json(
            dictionary(ListedObject, 'id → object (only the asked members with fields)'),
            'The objects; a page when limit is given, the next one in the Link header',
        ),
    },
    query: Type.Object({
        filter: Type.Optional(Type.String({ description: 'Pattern, default *' })),
        type: Type.Optional(Type.String({ description: 'Object type, e.g. state, channel, device' })),
        ...pageParams('object'),
    }),
    conditional: 'read',
    handler({ input, url }, ctx) {
        const filter = safePattern('filter', input.filter || '*');
        const { type } = input;
        // js-controller adds each object's `enums` map; without a type it lists state objects, as in 4.0.2
        return listingReply(
            ctx,
            `objects\n${filter}\n${type ?? ''}`,
            listingParams(input, 'object'),
            url,
            objectSource(ctx.data, filter, type || undefined),
        );
    },
});
