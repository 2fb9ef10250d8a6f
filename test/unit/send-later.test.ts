/*
 * Reply.later: an answer given through a callback (long polls answered from an event's delivery).
 * Over a real loopback socket; no storage.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { HttpError } from '../../src/http/http-error';
import { Reply, send } from '../../src/http/send';

let later: () => Reply;
let server: Server;
let base: string;

t.before(async () => {
    server = createServer((req, res) => send(req, res, later()));
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
t.teardown(() => server.close());

t.test('the first answer is written, a second one is ignored', async t => {
    later = () =>
        Reply.later(reply =>
            setTimeout(() => {
                reply(() => Reply.text('first', 'text/plain'));
                reply(() => Reply.text('second', 'text/plain'));
            }, 20),
        );
    const res = await fetch(base);
    t.equal(res.status, 200);
    t.equal(await res.text(), 'first');
});

t.test('an error while the answer is built becomes a JSON error answer, not a crash', async t => {
    later = () =>
        Reply.later(reply =>
            reply(() => {
                throw new HttpError('NOT_FOUND', 'gone');
            }),
        );
    let res = await fetch(base);
    t.equal(res.status, 404);
    t.same(await res.json(), { error: 'gone' });
    later = () =>
        Reply.later(() => {
            throw new Error('broken');
        });
    res = await fetch(base);
    t.equal(res.status, 500);
    const body = (await res.json()) as { error: string; stack?: string };
    t.notOk(body.stack, 'no stack trace');
});

t.test('HEAD gets the headers of the later answer without its body', async t => {
    later = () => Reply.later(reply => reply(() => Reply.text('body', 'text/plain')));
    const res = await fetch(base, { method: 'HEAD' });
    t.equal(res.status, 200);
    t.equal(res.headers.get('content-length'), '4');
    t.equal(await res.text(), '');
});
