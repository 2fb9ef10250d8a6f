import { Type } from '@sinclair/typebox';
import { safePattern } from '../src/access/patterns';
import { defineCommand } from '../src/command-runtime/command';
import { HttpError } from '../src/http/http-error';
import { commandPage, pageParams } from '../src/objects/listing-pages';
import { objectSource } from '../src/objects/listing-sources';
import { dictionary, idList, ListedObject, MAX_LIST_IDS } from '../src/http/schemas';

export default defineCommand({
    name: 'getObjects',
    summary: 'Read the objects of a list of ids (or a pattern); without a list all objects (needs object list right)',
    params: Type.Object({
        list: Type.Optional(
            Type.Union([idList(), Type.String()], {
                description: `JSON array of up to ${MAX_LIST_IDS} ids, or a pattern; empty = all`,
            }),
        ),
        ...pageParams('object'),
    }),
    permission: { type: 'object', operation: 'read' },
    effect: 'read',
    envelope: 'result',
    result: dictionary(ListedObject, 'id → object (only the asked members with fields)'),
    handler({ list, ...page }, ctx) {
        if (Array.isArray(list)) {
            const each = async (ids: string[]): Promise<Record<string, ioBroker.Object>> => {
                const result: Record<string, ioBroker.Object> = {};
                for (const id of ids) {
                    const obj = await ctx.data.getObject(id).catch(() => null);
                    if (obj) {
                        result[id] = obj;
                    }
                }
                return ctx.data.visibleObjects(result);
            };
            return commandPage(ctx, `objects\n${JSON.stringify(list)}`, page, 'object', {
                all: () => each(list),
                some: each,
            });
        }
        if (!list && !ctx.acl.object.list) {
            throw new HttpError('FORBIDDEN', 'permissionError');
        }
        const pattern = safePattern('list', list || '*');
        return commandPage(ctx, `objects\n${pattern}\n`, page, 'object', objectSource(ctx.data, pattern, undefined));
    },
});
