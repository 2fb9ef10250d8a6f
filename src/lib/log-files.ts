import { readdir, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { readFileSync } from 'node:fs';
import * as utils from '@iobroker/adapter-core';
import { tools } from '@iobroker/js-controller-common-db';

interface FileTransport {
    type?: string;
    enabled?: boolean;
    filename?: string;
}

/** js-controller's file loggers: transport name → folder. Relative names start at the ioBroker root. */
export function logFolders(): Map<string, string> {
    const root = join(utils.controllerDir, '..', '..');
    // js-controller's own lookup of iobroker.json, which honours IOBROKER_DATA_DIR
    const config = JSON.parse(readFileSync(tools.getConfigFileName(), 'utf8')) as { log?: { transport?: Record<string, FileTransport> } };
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
