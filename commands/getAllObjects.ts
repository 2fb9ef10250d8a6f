import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command';
import { commandPage, pageParams } from '../src/lib/listing-pages';
import { visibleObjects } from '../src/lib/read-access';

export default defineCommand({
    name: 'getAllObjects',
    summary: 'Every object the user may see, as a dictionary id → object',
    params: Type.Object({ ...pageParams('object') }),
    permission: { type: 'object', operation: 'list' },
    effect: 'read',
    envelope: 'result',
    adminOnly: true,
    async handler(page, ctx) {
        const list = await ctx.storage.getObjectListAsync({ include_docs: true }, ctx.callOptions);
        const all: Record<string, ioBroker.Object> = {};
        for (const row of list.rows) {
            if (row.doc) {
                all[row.id] = row.doc;
            }
        }
        return commandPage(visibleObjects(ctx, all), page, 'object');
    },
});
