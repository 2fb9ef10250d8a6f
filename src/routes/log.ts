import { Type } from '@sinclair/typebox';
import { HttpError } from '../http/http-error';
import { refuseUnsafeNames } from '../files/files';
import { listLogFiles, readHostLogFile, readLocalLogFile } from '../files/log-files';
import { logFileReply } from '../files/log-page';
import type { RequestContext } from '../context/request-context';
import { defineRoute } from '../routing/route';
import { json } from '../http/schemas';

// log files can hold anything an adapter logged, so they need what the readLogs command needs
const EXECUTE = { type: 'other', operation: 'execute' } as const;

/** `<host>/<transport>/<file>` is asked from that host's js-controller; `<transport>/<file path>` is read here. */
function readLogFile(ctx: RequestContext, name: string): Promise<Buffer | undefined> {
    const parts = name.split('/');
    if (parts.some(part => !part)) {
        return Promise.resolve(undefined);
    }
    if (parts.length === 3) {
        return readHostLogFile(ctx, parts[0], parts[1], parts[2]);
    }
    return parts.length > 1 ? readLocalLogFile(parts[0], parts.slice(1).join('/')) : Promise.resolve(undefined);
}

export const listLogsRoute = defineRoute({
    method: 'GET',
    path: '/log',
    summary: 'The log files as [{fileName, size}]; each opens at /<fileName>',
    tag: 'log',
    permission: EXECUTE,
    responses: {
        200: json(
            Type.Array(Type.Object({ fileName: Type.String(), size: Type.Number() }, { additionalProperties: true })),
            'The log files',
        ),
    },
    errors: [504],
    query: Type.Object({
        host: Type.Optional(Type.String({ description: 'Host name (default: the host of this instance)' })),
    }),
    handler: ({ input }, ctx) => listLogFiles(ctx, input.host || ctx.meta.host || ''),
});

export const readLogRoute = defineRoute({
    method: 'GET',
    path: '/log/*',
    wildcard: 'logFile',
    summary: 'A log file as an HTML page: <transport>/<file> of this machine or <host>/<transport>/<file> of a host',
    tag: 'log',
    permission: EXECUTE,
    responses: { 200: { description: 'The log as an HTML page', content: { 'text/html': Type.String() } } },
    errors: [404, 504],
    async handler({ params }, ctx) {
        const logFile = params['*'];
        refuseUnsafeNames({ logFile });
        const data = await readLogFile(ctx, logFile);
        if (!data) {
            throw new HttpError('NOT_FOUND', `File ${logFile} not found`);
        }
        return logFileReply(logFile, data);
    },
});
