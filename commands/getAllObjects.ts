import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';
import type { RequestContext } from '../src/context/request-context';
import { commandPage, pageParams } from '../src/objects/listing-pages';
import { dictionary, ListedObject } from '../src/http/schemas';

/** Every object from `first` to `last` (all when not given), as js-controller's object list has them. */
async function objectList(
    ctx: RequestContext,
    first?: string,
    last?: string,
): Promise<Record<string, ioBroker.Object>> {
    const range = first === undefined ? {} : { startkey: first, endkey: last };
    const list = await ctx.data.objectList({ ...range, include_docs: true });
    const all: Record<string, ioBroker.Object> = {};
    for (const row of list.rows) {
        if (row.doc) {
            all[row.id] = row.doc;
        }
    }
    return ctx.data.visibleObjects(all);
}

export default defineCommand({
    name: 'getAllObjects',
    summary: 'Every object the user may see, as a dictionary id → object',
    params: Type.Object({ ...pageParams('object') }),
    permission: { type: 'object', operation: 'list' },
    effect: 'read',
    envelope: 'result',
    result: dictionary(ListedObject, 'id → object (only the asked members with fields)'),
    adminOnly: true,
    handler(page, ctx) {
        return commandPage(ctx, 'allObjects', page, 'object', {
            all: () => objectList(ctx),
            // a page's ids are one range of the sorted ids: one read of that range, then only the kept ids
            async some(ids) {
                const range = await objectList(ctx, ids[0], ids[ids.length - 1]);
                return Object.fromEntries(ids.filter(id => range[id]).map(id => [id, range[id]]));
            },
        });
    },
});
