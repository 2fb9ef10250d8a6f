import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';
import { convertBodyValue } from '../src/states/state-value';
import { stateCommon, writeState } from '../src/states/states';

export default defineCommand({
    name: 'setState',
    summary: 'Write a state: a value (converted by the state type) or a state object {val, ack, ...}',
    params: Type.Object({
        id: Type.String({ description: 'State id' }),
        state: Type.Union(
            [
                Type.Object({}, { additionalProperties: true }),
                Type.String(),
                Type.Number(),
                Type.Boolean(),
                Type.Null(),
            ],
            {
                description: 'The value, or a JSON state object such as {"val":1,"ack":true}',
            },
        ),
        ack: Type.Optional(Type.Boolean({ description: 'Write as acknowledged (for a plain value)' })),
    }),
    permission: { type: 'state', operation: 'write' },
    effect: 'write',
    envelope: 'result',
    result: Type.String({ description: 'The id' }),
    async handler({ id, state, ack }, ctx) {
        const obj = await ctx.data.getObject(id);
        const type = stateCommon(obj)?.type;
        const settable: ioBroker.SettableState =
            state !== null && typeof state === 'object' ? { ...(state as ioBroker.SettableState) } : { val: state };
        if ('val' in settable) {
            settable.val = convertBodyValue(settable.val, type, id) as ioBroker.StateValue;
        }
        if (ack !== undefined && !(state !== null && typeof state === 'object' && 'ack' in state)) {
            settable.ack = ack;
        }
        await writeState(ctx, id, settable, 0);
        return id;
    },
});
