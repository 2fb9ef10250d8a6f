import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';
import { sendToHost } from '../src/messaging/messaging';
import { dictionary, FreeObject } from '../src/http/schemas';

export default defineCommand({
    name: 'getCompactRepository',
    summary: "The host's repository as {name: {version, icon}} (asks the host; 503 when it does not run)",
    description: '4.0.2 answered this with status 500 and the data in `error`; here it is `result` with 200.',
    params: Type.Object({ host: Type.String({ description: 'Host name' }) }),
    permission: { type: 'other', operation: 'sendto' },
    effect: 'read',
    envelope: 'result',
    result: Type.Union([dictionary(FreeObject, 'adapter name → {version, icon}'), Type.Null()]),
    errors: [504],
    adminOnly: true,
    async handler({ host }, ctx) {
        const repo = ((await sendToHost(ctx, host, 'getRepository', { repo: null })) ?? {}) as Record<
            string,
            { version?: string; extIcon?: string }
        >;
        const compact: Record<string, { version?: string; icon?: string }> = {};
        for (const [name, info] of Object.entries(repo)) {
            compact[name] = { version: info?.version, icon: info?.extIcon };
        }
        return compact;
    },
});
