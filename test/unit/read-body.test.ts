/*
 * The body reader's failures as the client's errors: pure logic, no storage.
 */
import t from 'tap';
import { Readable } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import { HttpError } from '../../src/http/http-error';
import { readJsonBody, readRawBody } from '../../src/http/read-body';

/** A request-like stream with the given headers and body. */
function request(headers: Record<string, string>, body: string): IncomingMessage {
    return Object.assign(Readable.from([Buffer.from(body)]), { headers }) as unknown as IncomingMessage;
}

const status = async (promise: Promise<unknown>): Promise<number | undefined> => {
    try {
        await promise;
        return undefined;
    } catch (err) {
        return err instanceof HttpError ? err.status : -1;
    }
};

t.test('a body raw-body refuses before reading is a 400, not a 500', async t => {
    t.equal(await status(readRawBody({ headers: {} } as unknown as IncomingMessage, 100)), 400);
});

t.test('a declared length above the limit is a 413 without reading', async t => {
    t.equal(await status(readRawBody(request({ 'content-length': '500' }, 'x'.repeat(500)), 100)), 413);
});

t.test('a body longer than the limit without a declared length is a 413', async t => {
    t.equal(await status(readRawBody(request({ 'transfer-encoding': 'chunked' }, 'x'.repeat(500)), 100)), 413);
});

t.test('JSON bodies: parsed, empty as undefined, bad JSON a 400', async t => {
    t.same(await readJsonBody(request({ 'content-length': '9', 'content-type': 'application/json' }, '{"val":1}'), 100), { val: 1 });
    t.equal(await readJsonBody(request({ 'content-length': '2' }, '  '), 100), undefined);
    t.equal(await status(readJsonBody(request({ 'content-length': '5', 'content-type': 'application/json' }, '{"va'), 100)), 400);
    t.equal(await status(readJsonBody(request({ 'content-length': '3', 'content-type': 'text/plain' }, 'abc'), 100)), 415);
});
