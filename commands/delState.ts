import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';

export default defineCommand({
    name: 'delState',
    summary: 'Delete the value of a state (the object stays)',
    params: Type.Object({ id: Type.String({ description: 'State id' }) }),
    permission: { type: 'state', operation: 'delete' },
    effect: 'write',
    envelope: 'result',
    result: Type.String({ description: 'The id' }),
    adminOnly: true,
    async handler({ id }, { data }) {
        await data.delState(id);
        return id;
    },
});
