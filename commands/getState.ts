import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';
import { StateSchema } from '../src/http/schemas';

export default defineCommand({
    name: 'getState',
    summary: 'Read the current state of one id',
    params: Type.Object({ id: Type.String({ description: 'State id, e.g. system.adapter.admin.0.alive' }) }),
    permission: { type: 'state', operation: 'read' },
    effect: 'read',
    envelope: 'result',
    result: Type.Union([StateSchema, Type.Null()]),
    handler({ id }, ctx) {
        const hit = ctx.data.peekState(id);
        return hit === undefined ? ctx.data.readState(id) : hit;
    },
});
