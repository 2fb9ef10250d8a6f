import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';
import { sendToHost } from '../src/messaging/messaging';
import { dictionary, FreeObject } from '../src/http/schemas';

export default defineCommand({
    name: 'getCompactInstalled',
    summary: 'Adapters installed on a host, as {name: {version}} (asks the host; 503 when it does not run)',
    description: '4.0.2 answered this with status 500 and the data in `error`; here it is `result` with 200.',
    params: Type.Object({ host: Type.String({ description: 'Host name, e.g. the one in system.host.<name>' }) }),
    permission: { type: 'other', operation: 'sendto' },
    effect: 'read',
    envelope: 'result',
    result: Type.Union([dictionary(FreeObject, 'adapter name → {version}'), Type.Null()]),
    errors: [504],
    adminOnly: true,
    async handler({ host }, ctx) {
        const installed = ((await sendToHost(ctx, host, 'getInstalled', null)) ?? {}) as Record<
            string,
            { version?: string }
        >;
        const compact: Record<string, { version?: string }> = {};
        for (const [name, info] of Object.entries(installed)) {
            if (name !== 'hosts') {
                compact[name] = { version: info?.version };
            }
        }
        return compact;
    },
});
