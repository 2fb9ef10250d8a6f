import { randomUUID } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';
import { anyJson, opaque } from '../src/http/schemas';
import { assertInstanceAlive, instanceName, sendToInstance } from '../src/messaging/messaging';

export default defineCommand({
    name: 'clientSubscribe',
    summary: 'Ask an instance to accept a client subscription (its messages cannot reach a REST client)',
    params: Type.Object({
        targetInstance: Type.String({ description: 'Instance, e.g. matter.0' }),
        messageType: Type.String({ description: 'Type of messages' }),
        data: Type.Optional(anyJson('Data for the instance (JSON or text)')),
    }),
    permission: { type: 'other', operation: 'sendto' },
    effect: 'write',
    envelope: 'result',
    result: opaque("The instance's reply, or null"),
    errors: [404, 408, 504],
    async handler({ targetInstance, messageType, data }, ctx) {
        const name = instanceName(targetInstance);
        await assertInstanceAlive(ctx, name);
        return (
            (await sendToInstance(ctx, name, 'clientSubscribe', { type: messageType, sid: randomUUID(), data })) ?? null
        );
    },
});
