import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command';
import { HttpError } from '../src/http-error';
import { listLocalLogFiles } from '../src/lib/log-files';
import { sendToHost } from '../src/lib/messaging';

export default defineCommand({
    name: 'readLogs',
    summary: 'Log files of a host as [{fileName, size}]; without a running host the local file loggers',
    params: Type.Object({ host: Type.String({ description: 'Host name' }) }),
    permission: { type: 'other', operation: 'execute' },
    effect: 'read',
    envelope: 'result',
    adminOnly: true,
    async handler({ host }, ctx) {
        try {
            const reply = (await sendToHost(ctx, host, 'getLogFiles', null, 3000)) as { list?: unknown[] } | undefined;
            return reply?.list ?? [];
        } catch (err) {
            if (!(err instanceof HttpError) || (err.status !== 503 && err.status !== 504)) {
                throw err;
            }
            return listLocalLogFiles();
        }
    },
});
