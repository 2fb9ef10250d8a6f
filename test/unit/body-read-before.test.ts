/*
 * Bodies the web adapter's parsers read before us (web-extension mode with web's auth on): what
 * body-parser leaves on the request is all there is. The whole path runs against the real web
 * adapter in test/real-web.test.ts; these are the edges a real client could reach there.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import t from 'tap';
import { bodyReadBefore, readJsonBody } from '../../src/http/read-body';
import { readUpload } from '../../src/http/read-multipart';
import { HttpError } from '../../src/http/http-error';

/** A request as it reaches us after body-parser: read to its end, `body` set. */
function parsed(body: unknown, headers: Record<string, string> = {}): IncomingMessage {
    return { readableEnded: true, body, headers } as unknown as IncomingMessage;
}
const basic = (value: string) => ({ authorization: value });
const b64 = (text: string) => Buffer.from(text).toString('base64');

t.test('a body still to be read is ours to read', async t => {
    t.equal(bodyReadBefore({ readableEnded: false, headers: {} } as unknown as IncomingMessage), undefined);
    t.equal(
        bodyReadBefore({ readableEnded: true, headers: {} } as unknown as IncomingMessage),
        undefined,
        'no parser left a result',
    );
});

t.test("web's login fields leave the body whenever web wrote them, however web read the header", async t => {
    const login = { username: 'admin', password: 'iobroker', stayLoggedIn: false };
    for (const header of [`Basic ${b64('admin:iobroker')}`, `BasicX ${b64('admin:iobroker')}`]) {
        const bytes = bodyReadBefore(parsed({ type: 'state', ...login }, basic(header)), 'json');
        t.same(JSON.parse(String(bytes)), { type: 'state' }, header.split(' ')[0]);
    }
    const own = bodyReadBefore(
        parsed({ username: 'someone', password: 'x' }, basic(`Basic ${b64('admin:iobroker')}`)),
        'json',
    );
    t.same(
        JSON.parse(String(own)),
        { username: 'someone', password: 'x' },
        "fields web did not write are the client's",
    );
});

t.test('JSON nested too deep for writing it out again is a 400, not a crash', async t => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) {
        deep = [deep];
    }
    const err = (() => {
        try {
            bodyReadBefore(parsed(deep, { 'content-type': 'application/json' }), 'json');
        } catch (e) {
            return e;
        }
        return undefined;
    })();
    t.ok(err instanceof HttpError, 'an HttpError');
    t.equal((err as HttpError).status, 400);
});

t.test('text and JSON sent as a form come back as the text', async t => {
    t.equal(
        String(bodyReadBefore(parsed('{"val":1}', { 'content-type': 'text/plain', 'content-length': '9' }))),
        '{"val":1}',
    );
    t.equal(
        String(
            bodyReadBefore(
                parsed(
                    { '{"val":1}': '' },
                    { 'content-type': 'application/x-www-form-urlencoded', 'content-length': '9' },
                ),
            ),
        ),
        '{"val":1}',
    );
});

/*
 * Behind the real body-parser, installed as web installs it with its auth on (urlencoded extended, JSON,
 * text, in that order): a body reaches us only as the client sent it, or as a 415 naming what to send.
 */
type Handler = (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const bodyParser = require(
    require.resolve('body-parser', { paths: [dirname(require.resolve('iobroker.web/package.json'))] }),
) as {
    urlencoded(options: { extended: boolean }): Handler;
    json(): Handler;
    text(): Handler;
};
const webParsers = [bodyParser.urlencoded({ extended: true }), bodyParser.json(), bodyParser.text()];

/** Posts `body` through web's parsers to `read`; answers its status and what it read (or its message). */
async function throughWeb(
    read: (req: IncomingMessage) => Promise<unknown>,
    body: Buffer | string,
    headers: Record<string, string>,
): Promise<{ status: number; result: unknown }> {
    const server = createServer((req, res) => {
        const run = (i: number): void => {
            if (i < webParsers.length) {
                webParsers[i](req, res, err => (err ? res.writeHead(400).end(String(err)) : run(i + 1)));
                return;
            }
            read(req).then(
                value =>
                    res.end(
                        JSON.stringify({
                            status: 200,
                            result: Buffer.isBuffer(value) ? value.toString('latin1') : value,
                        }),
                    ),
                (err: HttpError) => res.end(JSON.stringify({ status: err.status, result: err.message })),
            );
        };
        run(0);
    });
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
    try {
        const { port } = server.address() as AddressInfo;
        const res = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body, headers });
        return (await res.json()) as { status: number; result: unknown };
    } finally {
        server.close();
    }
}
const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };
const asJson = (req: IncomingMessage) => readJsonBody(req, 1 << 20);
const asFile = (req: IncomingMessage) => readUpload(req, 1 << 20);

t.test('JSON sent as a form: used only when web parsed it into exactly its text, else 415', async t => {
    t.same(await throughWeb(asJson, '{"val":1}', FORM), { status: 200, result: { val: 1 } }, 'curl -d still works');
    for (const text of ['{"val":"1+1"}', '{"val":"a%41"}', '{"val": 1}', '[{"val":1}]', '{"val":1}=']) {
        const { status, result } = await throughWeb(asJson, text, FORM);
        t.equal(status, 415, `${text}: ${JSON.stringify(result)}`);
        t.match(result, /application\/json/, 'the answer names the type to send');
    }
    const latin = await throughWeb(asJson, Buffer.from('{"val":"\u00e9"}', 'latin1'), {
        'Content-Type': 'text/plain; charset=iso-8859-1',
    });
    t.equal(latin.status, 415, 'text web decoded from another charset');
    t.same(await throughWeb(asJson, '{"val":"\u00e9+"}', { 'Content-Type': 'text/plain' }), {
        status: 200,
        result: { val: '\u00e9+' },
    });
    t.same(
        await throughWeb(asJson, '{ "val" : 1.50 }', { 'Content-Type': 'application/json' }),
        {
            status: 200,
            result: { val: 1.5 },
        },
        'a JSON body means the same parsed by web or by us',
    );
});

t.test('a file body: its exact bytes, or 415 where web parsed them into something else', async t => {
    const json = await throughWeb(asFile, '{ "a": 1 }\n', { 'Content-Type': 'application/json' });
    t.equal(json.status, 415, `a JSON file is not rewritten as {"a":1}: ${String(json.result)}`);
    t.match(json.result, /application\/octet-stream/);
    t.same(await throughWeb(asFile, 'line 1\nline 2\n', { 'Content-Type': 'text/plain' }), {
        status: 200,
        result: 'line 1\nline 2\n',
    });
    const bom = await throughWeb(asFile, '\ufeffwith a byte-order mark', { 'Content-Type': 'text/plain' });
    t.equal(bom.status, 415, 'a byte-order mark web took out');
    t.same(
        await throughWeb(asFile, '{ "a": 1 }\n', { 'Content-Type': 'application/octet-stream' }),
        {
            status: 200,
            result: '{ "a": 1 }\n',
        },
        'a type web leaves alone',
    );
});
