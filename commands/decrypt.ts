import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';
import { systemSecret } from '../src/auth/system-secret';

export default defineCommand({
    name: 'decrypt',
    summary: 'Decrypt a text that was encrypted with the system secret',
    params: Type.Object({ encryptedText: Type.String({ description: 'Encrypted text' }) }),
    permission: { type: 'users', operation: 'write' },
    effect: 'read',
    envelope: 'result',
    result: Type.String(),
    adminOnly: true,
    noStore: true,
    async handler({ encryptedText }, ctx) {
        return ctx.data.decrypt(await systemSecret(ctx.data), encryptedText);
    },
});
