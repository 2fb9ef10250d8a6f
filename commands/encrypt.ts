import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';
import { systemSecret } from '../src/auth/system-secret';

export default defineCommand({
    name: 'encrypt',
    summary: 'Encrypt a text with the system secret (as adapters store passwords)',
    params: Type.Object({ plainText: Type.String({ description: 'Text to encrypt' }) }),
    permission: { type: 'users', operation: 'write' },
    effect: 'read',
    envelope: 'result',
    result: Type.String(),
    adminOnly: true,
    async handler({ plainText }, ctx) {
        return ctx.data.encrypt(await systemSecret(ctx.data), plainText);
    },
});
