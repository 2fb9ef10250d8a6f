/*
 * Outgoing requests (URL hooks, httpGet) go out on agents that keep neither connections nor TLS
 * sessions: each connection passes the guarded lookup, and no session a receiver handed out goes out
 * again in a later ClientHello (a receiver that moved its name to an address in this network could
 * make that carry bytes of its choice there).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { outgoingAgent } from '../../src/messaging/target-guard';
import { safeHttpGet } from '../../src/messaging/safe-http-get';

t.test('one agent per protocol, without keep-alive; the https one keeps no TLS session', async t => {
    const https = outgoingAgent(new URL('https://example.org/'));
    const http = outgoingAgent(new URL('http://example.org/'));
    t.equal(outgoingAgent(new URL('https://other.example/')), https, 'the same agent for every https call');
    t.equal(outgoingAgent(new URL('http://other.example/')), http, 'the same agent for every http call');
    t.not(https, http);
    const settings = (agent: object) => agent as { maxCachedSessions?: number; keepAlive: boolean };
    t.equal(settings(https).maxCachedSessions, 0, 'no TLS session is kept');
    t.equal(settings(https).keepAlive, false);
    t.equal(settings(http).keepAlive, false);
});

t.test('httpGet opens a connection per call and asks to close it', async t => {
    const seen: { port: number; connection: string | undefined }[] = [];
    const server = createServer((req, res) => {
        seen.push({ port: req.socket.remotePort!, connection: req.headers.connection });
        res.end('ok');
    });
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
    t.teardown(() => server.close());
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const options = { targets: { loopback: true, linkLocal: false, option: 'httpGetAllowLocal' }, timeoutMs: 1000, maxBytes: 1000 };
    t.equal((await safeHttpGet(url, options)).body.toString(), 'ok');
    t.equal((await safeHttpGet(url, options)).body.toString(), 'ok');
    t.same(
        seen.map(s => s.connection),
        ['close', 'close'],
    );
    t.equal(new Set(seen.map(s => s.port)).size, 2, 'no connection is used twice');
});
