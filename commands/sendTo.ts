import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';
import { anyJson, opaque } from '../src/http/schemas';
import {
    assertInstanceAlive,
    assertMessageAllowed,
    DEFAULT_MESSAGE_TIMEOUT_MS,
    instanceName,
    MAX_MESSAGE_TIMEOUT_MS,
} from '../src/messaging/messaging';
import { sendToBounded } from '../src/messaging/history';

export default defineCommand({
    name: 'sendTo',
    summary: 'Send a message to an adapter instance and answer its reply as it is',
    params: Type.Object({
        adapterInstance: Type.String({ description: 'Instance, e.g. history.0' }),
        command: Type.String({ description: 'Command of the message' }),
        message: anyJson('The message (JSON or text)'),
        timeout: Type.Integer({
            minimum: 1,
            maximum: MAX_MESSAGE_TIMEOUT_MS,
            default: DEFAULT_MESSAGE_TIMEOUT_MS,
            description: 'ms to wait for the reply',
        }),
    }),
    permission: { type: 'other', operation: 'sendto' },
    effect: 'write',
    envelope: 'raw',
    result: opaque("The instance's reply as it is, or null"),
    errors: [404, 408, 504],
    async handler({ adapterInstance, command, message, timeout }, ctx) {
        const name = instanceName(adapterInstance);
        await assertInstanceAlive(ctx, name);
        await assertMessageAllowed(ctx, name, command, message);
        return (await sendToBounded(ctx, name, command, message, timeout)) ?? null;
    },
});
