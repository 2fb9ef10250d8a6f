import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command';
import { commandPage, pageParams } from '../src/lib/listing-pages';
import { visibleObjects } from '../src/lib/read-access';

export default defineCommand({
    name: 'getForeignObjects',
    summary: 'Read all objects matching a pattern, optionally of one type',
    params: Type.Object({
        pattern: Type.String({ description: 'Pattern, e.g. system.adapter.*' }),
        type: Type.Optional(Type.String({ description: 'Object type, e.g. state, instance; empty = any' })),
        ...pageParams('object'),
    }),
    permission: { type: 'object', operation: 'list' },
    effect: 'read',
    envelope: 'result',
    adminOnly: true,
    async handler({ pattern, type, ...page }, ctx) {
        const objects = type
            ? await ctx.storage.getForeignObjectsAsync(pattern, type as ioBroker.ObjectType, ctx.callOptions)
            : await ctx.storage.getForeignObjectsAsync(pattern, ctx.callOptions);
        return commandPage(visibleObjects(ctx, objects ?? {}), page, 'object');
    },
});
