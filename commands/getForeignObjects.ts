import { Type } from '@sinclair/typebox';
import { safePattern } from '../src/access/patterns';
import { defineCommand } from '../src/command-runtime/command';
import { commandPage, pageParams } from '../src/objects/listing-pages';
import { objectSource } from '../src/objects/listing-sources';
import { dictionary, ListedObject } from '../src/http/schemas';

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
    result: dictionary(ListedObject, 'id → object with its enums (only the asked members with fields)'),
    adminOnly: true,
    handler({ pattern: given, type, ...page }, ctx) {
        const pattern = safePattern('pattern', given);
        return commandPage(
            ctx,
            `objects\n${pattern}\n${type ?? ''}`,
            page,
            'object',
            objectSource(ctx.data, pattern, type || undefined),
        );
    },
});
