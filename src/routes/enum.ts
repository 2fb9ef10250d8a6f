import { Type } from '@sinclair/typebox';
import { defineRoute } from '../routing/route';
import { Reply } from '../http/send';
import { dictionary, FreeObject, json, ObjectSchema } from '../http/schemas';

const READ = { type: 'object', operation: 'read' } as const;

export const listEnumsRoute = defineRoute({
    method: 'GET',
    path: '/v1/enum',
    scoped: 'ids',
    summary: 'Every enum by category: {"enum.rooms": {"enum.rooms.kitchen": {...}}, ...}',
    tag: 'enum',
    permission: READ,
    responses: {
        200: json(
            dictionary(dictionary(ObjectSchema, 'enum id → enum object'), 'category → its enums'),
            'The enums by category',
        ),
    },
    conditional: 'read',
    async handler(_req, ctx) {
        return Reply.json(await ctx.data.enums()).validated('body');
    },
});

export const readEnumRoute = defineRoute({
    method: 'GET',
    path: '/v1/enum/:enumId',
    scoped: 'ids',
    summary: 'The enums of one category (e.g. rooms), nested ones included: [{_id, common}]',
    tag: 'enum',
    permission: READ,
    responses: {
        200: json(
            Type.Array(Type.Object({ _id: Type.String(), common: Type.Optional(FreeObject) })),
            'The enums of the category',
        ),
    },
    conditional: 'read',
    async handler({ params }, ctx) {
        // `rooms` as in 4.0.2; `enum.rooms` is accepted too
        const category = `enum.${params.enumId.replace(/^enum\./, '')}.`;
        const view = await ctx.data.objectView('system', 'enum', { startkey: category, endkey: `${category}\u9999` });
        const rows = view?.rows ?? [];
        const result = [];
        for (const row of rows) {
            const obj = row.value as ioBroker.Object | null;
            result.push({ _id: row.id, common: obj?.common && (await ctx.data.withVisibleMembers(obj)).common });
        }
        return Reply.json(result).validated('body');
    },
});
