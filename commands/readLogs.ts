import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';
import { listLogFiles } from '../src/files/log-files';

export default defineCommand({
    name: 'readLogs',
    summary: 'Log files of a host as [{fileName, size}]; without a running host the local file loggers',
    params: Type.Object({ host: Type.String({ description: 'Host name' }) }),
    permission: { type: 'other', operation: 'execute' },
    effect: 'read',
    envelope: 'result',
    result: Type.Array(Type.Object({ fileName: Type.String(), size: Type.Number() }, { additionalProperties: true })),
    errors: [504],
    adminOnly: true,
    handler: ({ host }, ctx) => listLogFiles(ctx, host),
});
