/*
 * Bodies the web adapter's parsers read before us (web-extension mode with web's auth on): what
 * body-parser leaves on the request is all there is. The whole path runs against the real web
 * adapter in test/real-web.test.ts; these are the edges a real client could reach there.
 */
import type { IncomingMessage } from 'node:http';
import t from 'tap';
import { bodyReadBefore } from '../../src/http/read-body';
import { HttpError } from '../../src/http/http-error';

/** A request as it reaches us after body-parser: read to its end, `body` set. */
function parsed(body: unknown, headers: Record<string, string> = {}): IncomingMessage {
    return { readableEnded: true, body, headers } as unknown as IncomingMessage;
}
const basic = (value: string) => ({ authorization: value });
const b64 = (text: string) => Buffer.from(text).toString('base64');

t.test('a body still to be read is ours to read', async t => {
    t.equal(bodyReadBefore({ readableEnded: false, headers: {} } as unknown as IncomingMessage), undefined);
    t.equal(bodyReadBefore({ readableEnded: true, headers: {} } as unknown as IncomingMessage), undefined, 'no parser left a result');
});

t.test("web's login fields leave the body whenever web wrote them, however web read the header", async t => {
    const login = { username: 'admin', password: 'iobroker', stayLoggedIn: false };
    for (const header of [`Basic ${b64('admin:iobroker')}`, `BasicX ${b64('admin:iobroker')}`]) {
        const bytes = bodyReadBefore(parsed({ type: 'state', ...login }, basic(header)));
        t.same(JSON.parse(String(bytes)), { type: 'state' }, header.split(' ')[0]);
    }
    const own = bodyReadBefore(parsed({ username: 'someone', password: 'x' }, basic(`Basic ${b64('admin:iobroker')}`)));
    t.same(JSON.parse(String(own)), { username: 'someone', password: 'x' }, "fields web did not write are the client's");
});

t.test('JSON nested too deep for writing it out again is a 400, not a crash', async t => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) {
        deep = [deep];
    }
    const err = (() => {
        try {
            bodyReadBefore(parsed(deep, { 'content-type': 'application/json' }));
        } catch (e) {
            return e;
        }
        return undefined;
    })();
    t.ok(err instanceof HttpError, 'an HttpError');
    t.equal((err as HttpError).status, 400);
});

t.test('text and JSON sent as a form come back as the text', async t => {
    t.equal(String(bodyReadBefore(parsed('{"val":1}', { 'content-type': 'text/plain' }))), '{"val":1}');
    t.equal(String(bodyReadBefore(parsed({ '{"val":1}': '' }, { 'content-type': 'application/x-www-form-urlencoded' }))), '{"val":1}');
});
