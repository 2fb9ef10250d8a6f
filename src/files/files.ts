import { Type, type TSchema } from '@sinclair/typebox';
import { BinaryBody } from '../command-runtime/command';
import { paramsError } from '../http/parse-params';
import { NoResults } from '../http/schemas';
import type { CallerData } from '../storage/data';

export const metaIdParam = Type.String({
    minLength: 1,
    description: 'Id of the meta object holding the files, e.g. vis.0 or 0_userdata.0',
});

export const binaryParam = Type.Optional(
    Type.Boolean({ description: 'Answer the raw bytes, with the file type as Content-Type' }),
);

export const fileModeParam = Type.Union(
    [Type.Integer({ minimum: 0 }), Type.String({ pattern: '^[0-9a-fA-F]{1,4}$' })],
    {
        description: 'File permissions: a number, or hex text as in ioBroker ("644" = 0x644)',
    },
);

/** The parameters of rename and renameFile. */
export const renameParams = Type.Object({
    adapter: metaIdParam,
    oldName: Type.String({ description: 'Current path inside the meta object' }),
    newName: Type.String({ description: 'New path inside the meta object' }),
});

/** The parameters of readFile and readFile64. */
export const readFileParams = Type.Object({
    adapter: metaIdParam,
    fileName: Type.String({
        description: 'Path inside the meta object, e.g. main/vis-views.json (a suffix ?binary means binary=true)',
    }),
    binary: binaryParam,
});

/** What the file-reading commands declare alike: the raw bytes on request. */
export const FILE_READING = {
    permission: { type: 'file', operation: 'read' } as const,
    effect: 'read' as const,
    envelope: 'results' as const,
    errors: [404],
    binary: { response: true as const },
};

/** What the file-changing commands declare alike. */
export const FILE_CHANGE = {
    permission: { type: 'file', operation: 'write' } as const,
    effect: 'write' as const,
    errors: [404],
};

/** What rename and renameFile declare alike; they differ in what happens to a folder or a missing file. */
export const RENAMING = {
    params: renameParams,
    ...FILE_CHANGE,
    envelope: 'results' as const,
    result: NoResults,
};

/** A file, a folder or a pattern whose mode or owner changes. */
export function fileChangeParams<O extends TSchema>(options: O) {
    return Type.Object({
        adapter: metaIdParam,
        fileName: Type.String({ description: 'File, folder or pattern inside the meta object, e.g. main/*' }),
        options: Type.Optional(options),
    });
}

/** js-controller reads a text mode as hex in chmodFile only; writeFile would store the text itself. */
export function fileMode(mode: number | string): number {
    return typeof mode === 'string' ? parseInt(mode, 16) : mode;
}

const MIME_TYPES: Readonly<Record<string, string>> = {
    html: 'text/html',
    htm: 'text/html',
    css: 'text/css',
    js: 'application/javascript',
    mjs: 'application/javascript',
    json: 'application/json',
    json5: 'application/json5',
    map: 'application/json',
    txt: 'text/plain',
    md: 'text/markdown',
    csv: 'text/csv',
    xml: 'application/xml',
    yaml: 'text/yaml',
    yml: 'text/yaml',
    svg: 'image/svg+xml',
    png: 'image/png',
    jpg: 'image/jpeg',
    jpeg: 'image/jpeg',
    gif: 'image/gif',
    webp: 'image/webp',
    bmp: 'image/bmp',
    ico: 'image/x-icon',
    pdf: 'application/pdf',
    zip: 'application/zip',
    gz: 'application/gzip',
    wasm: 'application/wasm',
    mp3: 'audio/mpeg',
    wav: 'audio/wav',
    ogg: 'audio/ogg',
    mp4: 'video/mp4',
    webm: 'video/webm',
    woff: 'font/woff',
    woff2: 'font/woff2',
    ttf: 'font/ttf',
    otf: 'font/otf',
};

/** The type for a file stored without one, by its extension (the same names js-controller uses). */
export function mimeTypeOf(fileName: string): string {
    const base = fileName.slice(fileName.lastIndexOf('/') + 1);
    const dot = base.lastIndexOf('.');
    return (dot > 0 && MIME_TYPES[base.slice(dot + 1).toLowerCase()]) || 'application/octet-stream';
}

const PARENT_SEGMENT = /(^|[\\/])\.\.([\\/]|$)/;
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const CONTROL_CHARACTER = /[\x00-\x1f\x7f]/;

/** js-controller silently rewrites such names into other paths, so they never reach the storage. */
export function refuseUnsafeNames(names: Record<string, string>): void {
    const problems = Object.entries(names)
        .filter(([, name]) => PARENT_SEGMENT.test(name) || CONTROL_CHARACTER.test(name))
        .map(([param]) => ({ param, problem: 'must not contain a ".." path segment or control characters' }));
    if (problems.length) {
        throw paramsError(problems, []);
    }
}

const BINARY_SUFFIX = '?binary';

/** The 4.0.2 README form `fileName=admin.png?binary` asks for raw bytes just like `binary=true`. */
export function readRequest(fileName: string, binary = false): { fileName: string; binary: boolean } {
    const request = fileName.endsWith(BINARY_SUFFIX)
        ? { fileName: fileName.slice(0, -BINARY_SUFFIX.length), binary: true }
        : { fileName, binary };
    refuseUnsafeNames({ fileName: request.fileName });
    return request;
}

export interface StoredFile {
    /** A string for text types, a Buffer otherwise (as js-controller returns it). */
    data: string | Buffer;
    mimeType: string;
}

export async function readStoredFile(
    data: CallerData,
    adapterName: string,
    fileName: string,
    context: Record<string, unknown> = {},
): Promise<StoredFile> {
    const { file, mimeType } = await data.readFile(adapterName, fileName, context);
    return { data: file, mimeType: mimeType || mimeTypeOf(fileName) };
}

export function toBinaryBody(file: StoredFile): BinaryBody {
    return new BinaryBody(Buffer.isBuffer(file.data) ? file.data : Buffer.from(file.data), file.mimeType);
}

/** "Not exists" only means that nothing is left to do for this entry. */
async function ignoreMissing<T>(promise: Promise<T>): Promise<T | undefined> {
    try {
        return await promise;
    } catch (err) {
        if ((err as Error)?.message === 'Not exists') {
            return undefined;
        }
        throw err;
    }
}

function childOf(dir: string, child: string): string {
    return `${dir.replace(/\/+$/, '')}/${child}`;
}

/**
 * Deletes a file, or a folder with everything below it; every level runs with the caller's rights.
 * Answers false when there was nothing to delete.
 */
export async function unlinkRecursive(
    data: CallerData,
    adapterName: string,
    name: string,
    context: Record<string, unknown> = {},
): Promise<boolean> {
    const entries = (await ignoreMissing(data.readDir(adapterName, name, context))) ?? [];
    for (const entry of entries) {
        await unlinkRecursive(data, adapterName, childOf(name, entry.file), context);
    }
    const unlinked = await ignoreMissing(data.unlink(adapterName, name, context).then(() => true));
    return entries.length > 0 || unlinked === true;
}

/** Renames a file, or a folder entry by entry; every level runs with the caller's rights. */
export async function renameRecursive(
    data: CallerData,
    adapterName: string,
    oldName: string,
    newName: string,
): Promise<void> {
    const entries = (await ignoreMissing(data.readDir(adapterName, oldName))) ?? [];
    for (const entry of entries) {
        await renameRecursive(data, adapterName, childOf(oldName, entry.file), childOf(newName, entry.file));
    }
    await ignoreMissing(data.rename(adapterName, oldName, newName));
}
