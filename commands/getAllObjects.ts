import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command';

export default defineCommand({
    name: 'getAllObjects',
    summary: 'Every object the user may see, as a dictionary id → object',
    params: Type.Object({}),
    permission: { type: 'object', operation: 'list' },
    effect: 'read',
    envelope: 'result',
    adminOnly: true,
    async handler(_params, { adapter, callOptions }) {
        const list = await adapter.getObjectListAsync({ include_docs: true }, callOptions);
        const all: Record<string, unknown> = {};
        for (const row of list.rows) {
            if (row.doc) {
                all[row.id] = row.doc;
            }
        }
        return all;
    },
});
