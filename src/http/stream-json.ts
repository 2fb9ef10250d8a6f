import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';

/** Up to this many entries a dictionary is sent as one body with a Content-Length, as always. */
export const STREAM_FROM_ENTRIES = 2000;
const CHUNK_CHARS = 64 * 1024;

/** A dictionary answer, optionally inside an envelope: `before` + `{...}` + `after`. */
export interface DictionaryBody {
    entries: Record<string, unknown>;
    before: string;
    after: string;
}

/** The whole text, exactly what `JSON.stringify` of the enveloped dictionary gives. */
export function dictionaryText(body: DictionaryBody): string {
    return body.before + JSON.stringify(body.entries) + body.after;
}

/** The tag `bodyTag(dictionaryText(body))` gives (src/http/conditional.ts), hashed entry by entry instead of from one large text. */
export function dictionaryHash(body: DictionaryBody): string {
    const hash = createHash('sha1').update(`${body.before}{`);
    let first = true;
    for (const key of Object.keys(body.entries)) {
        const value = JSON.stringify(body.entries[key]);
        if (value !== undefined) {
            hash.update(`${first ? '' : ','}${JSON.stringify(key)}:${value}`);
            first = false;
        }
    }
    return `"b${hash.update(`}${body.after}`).digest('base64url').slice(0, 22)}"`;
}

/**
 * Writes the dictionary as it serialises it, in chunks of about 64 KiB, waiting for the socket to
 * drain: the adapter never holds the whole text, and a slow reader does not make it buffer one.
 * The bytes equal `dictionaryText` (entries whose value JSON leaves out are left out here too).
 */
export async function writeDictionary(res: ServerResponse, body: DictionaryBody): Promise<void> {
    let chunk = `${body.before}{`;
    let first = true;
    for (const key of Object.keys(body.entries)) {
        const value = JSON.stringify(body.entries[key]);
        if (value === undefined) {
            continue;
        }
        chunk += `${first ? '' : ','}${JSON.stringify(key)}:${value}`;
        first = false;
        if (chunk.length >= CHUNK_CHARS) {
            if (!(await written(res, chunk))) {
                return;
            }
            chunk = '';
        }
    }
    res.end(`${chunk}}${body.after}`);
}

/** Resolves true once the socket took the chunk (or buffered it below its limit), false when it went away. */
function written(res: ServerResponse, chunk: string): Promise<boolean> | boolean {
    if (res.destroyed) {
        return false;
    }
    if (res.write(chunk)) {
        return true;
    }
    return new Promise(resolve => {
        const done = (ok: boolean): void => {
            res.off('drain', onDrain);
            res.off('close', onClose);
            resolve(ok);
        };
        const onDrain = (): void => done(true);
        const onClose = (): void => done(false);
        res.on('drain', onDrain);
        res.on('close', onClose);
    });
}
