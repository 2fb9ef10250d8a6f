import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command';
import { HttpError } from '../src/http-error';
import { commandPage, pageParams } from '../src/lib/listing-pages';
import { visibleObjects } from '../src/lib/read-access';

export default defineCommand({
    name: 'getObjects',
    summary: 'Read the objects of a list of ids (or a pattern); without a list all objects (needs object list right)',
    params: Type.Object({
        list: Type.Optional(
            Type.Union([Type.Array(Type.String()), Type.String()], { description: 'JSON array of ids, or a pattern; empty = all' }),
        ),
        ...pageParams('object'),
    }),
    permission: { type: 'object', operation: 'read' },
    effect: 'read',
    envelope: 'result',
    async handler({ list, ...page }, ctx) {
        const { storage, acl } = ctx;
        if (Array.isArray(list)) {
            const result: Record<string, ioBroker.Object> = {};
            for (const id of list) {
                const obj = await storage.getForeignObjectAsync(id, ctx.callOptions).catch(() => null);
                if (obj) {
                    result[id] = obj;
                }
            }
            return commandPage(visibleObjects(ctx, result), page, 'object');
        }
        if (!list && !acl.object.list) {
            throw new HttpError('FORBIDDEN', 'permissionError');
        }
        return commandPage(visibleObjects(ctx, (await storage.getForeignObjectsAsync(list || '*', ctx.callOptions)) ?? {}), page, 'object');
    },
});
