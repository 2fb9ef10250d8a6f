import type { IncomingMessage } from 'node:http';
import { Busboy, type BusboyHeaders, type BusboyInstance } from '@fastify/busboy';
import { HttpError } from './http-error';
import { hasBody, readRawBody, tooLarge } from './read-body';

/** The form field holding the file, as in 4.0.2 (multer's `upload.single('file')`). */
const FILE_FIELD = 'file';

/**
 * Reads the `file` part of a multipart form into memory, counting every byte of the body against
 * `limit`: beyond it the read stops with 413 and the caller never gets partial data to store.
 */
function readMultipartFile(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
    return new Promise((resolve, reject) => {
        let settled = false;
        const fail = (err: HttpError): void => {
            if (!settled) {
                settled = true;
                req.unpipe();
                req.resume();
                reject(err);
            }
        };
        let parser: BusboyInstance;
        try {
            parser = Busboy({ headers: req.headers as BusboyHeaders, limits: { fileSize: limit } });
        } catch {
            return fail(new HttpError('BAD_REQUEST', 'The multipart body has no boundary'));
        }
        let received = 0;
        req.on('data', (chunk: Buffer) => {
            received += chunk.length;
            if (received > limit) {
                fail(tooLarge(limit));
            }
        });
        req.on('error', () => fail(new HttpError('BAD_REQUEST', 'Request body could not be read')));
        const chunks: Buffer[] = [];
        let found = false;
        parser.on('file', (field, stream) => {
            if (field !== FILE_FIELD || found) {
                stream.resume();
                return;
            }
            found = true;
            stream.on('data', (chunk: Buffer) => chunks.push(chunk));
            stream.on('limit', () => fail(tooLarge(limit)));
        });
        parser.on('error', () => fail(new HttpError('BAD_REQUEST', 'The multipart body could not be read')));
        // busboy emits finish only after every file stream has ended
        parser.on('finish', () => {
            if (!settled) {
                settled = true;
                resolve(found ? Buffer.concat(chunks) : undefined);
            }
        });
        req.pipe(parser);
    });
}

/**
 * An uploaded file: the `file` field of a `multipart/form-data` body, or any other body as raw
 * bytes (e.g. `application/octet-stream`). `undefined` when no file was sent.
 */
export async function readUpload(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
    if (/^multipart\/form-data/i.test(req.headers['content-type'] ?? '')) {
        if (Number(req.headers['content-length']) > limit) {
            throw tooLarge(limit);
        }
        return readMultipartFile(req, limit);
    }
    if (!hasBody(req)) {
        return undefined;
    }
    const data = await readRawBody(req, limit);
    return data.length ? data : undefined;
}
