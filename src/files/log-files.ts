import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { readFileSync } from 'node:fs';
import * as utils from '@iobroker/adapter-core';
import { HttpError } from '../http/http-error';
import type { RequestContext } from '../context/request-context';
import { sendToHost } from '../messaging/messaging';

export const HOST_LOG_TIMEOUT_MS = 10_000;

interface FileTransport {
    type?: string;
    enabled?: boolean;
    filename?: string;
}

/** js-controller's file loggers: transport name → folder. Relative names start at the ioBroker root. */
export function logFolders(): Map<string, string> {
    const root = join(utils.controllerDir, '..', '..');
    // iobroker.json lives in the data dir (IOBROKER_DATA_DIR when set); js-controller's own lookup
    // would need its common-db package, which an installed adapter does not depend on
    const config = JSON.parse(readFileSync(join(utils.getAbsoluteDefaultDataDir(), 'iobroker.json'), 'utf8')) as {
        log?: { transport?: Record<string, FileTransport> };
    };
    const transports = config.log?.transport ?? {};
    const folders = new Map<string, string>();
    for (const [name, transport] of Object.entries(transports)) {
        if (transport?.type === 'file' && transport.enabled !== false && transport.filename) {
            const file = isAbsolute(transport.filename) ? transport.filename : join(root, transport.filename);
            folders.set(name, dirname(file));
        }
    }
    return folders;
}

/** The local log files as `readLogs` lists them: `log/<transport>/<file>` with their size. */
export async function listLocalLogFiles(): Promise<Array<{ fileName: string; size: number }>> {
    const list: Array<{ fileName: string; size: number }> = [];
    for (const [transport, folder] of logFolders()) {
        const names = await readdir(folder).catch(() => [] as string[]);
        for (const name of names.sort()) {
            const info = await stat(join(folder, name)).catch(() => null);
            if (info?.isFile() && /\.log(\.gz)?$/.test(name)) {
                list.push({ fileName: `log/${transport}/${basename(name)}`, size: info.size });
            }
        }
    }
    return list;
}

/** The host's log files (`log/<host>/<transport>/<file>`); without a running host the local file loggers. */
export async function listLogFiles(ctx: RequestContext, host: string): Promise<unknown[]> {
    try {
        const reply = (await sendToHost(ctx, host, 'getLogFiles', null, 3000)) as { list?: unknown[] } | undefined;
        return reply?.list ?? [];
    } catch (err) {
        if (!(err instanceof HttpError) || (err.status !== 503 && err.status !== 504)) {
            throw err;
        }
        return listLocalLogFiles();
    }
}

/** A file of a local file logger, or undefined; `name` never leaves the logger's folder. */
export async function readLocalLogFile(transport: string, name: string): Promise<Buffer | undefined> {
    const folder = logFolders().get(transport);
    if (!folder) {
        return undefined;
    }
    const file = resolve(folder, name);
    const inside = relative(folder, file);
    if (!inside || inside.startsWith('..') || isAbsolute(inside)) {
        return undefined;
    }
    return readFile(file).catch(() => undefined);
}

/** js-controller hands file bytes over the message box as a Buffer, or as its JSON form. */
function toBuffer(data: unknown): Buffer | undefined {
    if (Buffer.isBuffer(data)) {
        return data;
    }
    if (typeof data === 'string') {
        return Buffer.from(data);
    }
    const json = data as { type?: string; data?: unknown } | null;
    return json?.type === 'Buffer' && Array.isArray(json.data) ? Buffer.from(json.data as number[]) : undefined;
}

/** A log file of a host, read by its js-controller (`getLogFile`), or undefined when it has none. */
export async function readHostLogFile(
    ctx: RequestContext,
    host: string,
    transport: string,
    filename: string,
): Promise<Buffer | undefined> {
    const reply = (await sendToHost(ctx, host, 'getLogFile', { filename, transport }, HOST_LOG_TIMEOUT_MS)) as
        { data?: unknown; error?: unknown } | undefined;
    return reply?.error ? undefined : toBuffer(reply?.data);
}
