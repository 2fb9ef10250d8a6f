/*
 * Reverse-proxy awareness and conditional requests, tried as an attacker would: a client
 * behind a trusted proxy that appends to its Forwarded header, a write-only API token that wants to
 * read, and a cache that keeps a decrypted password.
 */
import t from 'tap';
import { createForwarding } from '../../src/http/forwarded';
import type { IncomingMessage } from 'node:http';
import { createState } from '../support/iobroker';
import { startInProcess, type InProcessApp, type InProcessHost } from '../support/in-process';
import { basic } from '../support/raw-request';

const ADMIN = basic('admin', 'iobroker');
const PROXY = '10.0.0.1';
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
// what the client sent (an unterminated quoted value), then what an RFC 7239 proxy appended for the real client
const SMUGGLED = 'for=198.51.100.66;proto=https;host=evil.example;x=", for=192.0.2.10';

let host: InProcessHost;
let app: InProcessApp;
t.before(async () => {
    host = await startInProcess();
    await createState(host.storage, '0_userdata.0.rv.door', { type: 'boolean' }, true);
    app = await host.app({ auth: true, trustProxy: PROXY });
});
t.teardown(async () => {
    await app?.close();
    await host?.stop();
});

t.test('Forwarded: a quote the client left open must not swallow the element its proxy appended', async t => {
    const view = createForwarding({ trustProxy: [PROXY], publicUrl: '' })!.view({ socket: { remoteAddress: PROXY }, headers: { forwarded: SMUGGLED } } as unknown as IncomingMessage);
    t.not(view.address, '198.51.100.66', 'the damping address is not one the client chose');
    t.notMatch(String(view.origin), /evil/, 'nor the origin');
    const doc = await app.request('/api-docs/openapi.json', { headers: { ...ADMIN, Forwarded: SMUGGLED }, remoteAddress: PROXY });
    t.equal(doc.status, 200);
    t.notMatch(JSON.stringify(doc.json.servers ?? []), /evil\.example/, 'the OpenAPI servers do not name the client-chosen host');
});

t.test('a token that may write a state but not read it learns nothing of it through If-Match (403, no ETag)', async t => {
    const created = await app.request('/v1/tokens', { method: 'POST', headers: ADMIN, body: { name: 'button', scope: { write: ['0_userdata.0.rv.door'] } } });
    t.equal(created.status, 201);
    const token = created.json.token as string;
    t.equal((await app.request('/v1/state/0_userdata.0.rv.door', { headers: bearer(token) })).status, 403, 'a plain read is refused');
    const res = await app.request('/v1/state/0_userdata.0.rv.door', { method: 'PATCH', body: { val: false }, headers: { ...bearer(token), 'If-Match': '"guess"' } });
    t.equal(res.headers.etag, undefined, 'no version (ts, lc, hash of the value) of a state it may not read');
    t.equal(res.status, 403);
    const stored = await host.storage.states.getStateAsync('0_userdata.0.rv.door');
    t.equal(stored?.val, true, 'nothing written');
    const plain = await app.request('/v1/state/0_userdata.0.rv.door', { method: 'PATCH', body: { val: false }, headers: bearer(token) });
    t.equal(plain.status, 200, 'while a plain write is allowed: the 403 above is the missing read right');
});

t.test('a decrypted password is never kept by a cache (Cache-Control: no-store)', async t => {
    const enc = await app.request('/v1/command/encrypt?plainText=hunter2', { headers: ADMIN });
    t.equal(enc.status, 200);
    const dec = await app.request(`/v1/command/decrypt?encryptedText=${encodeURIComponent(enc.json.result)}`, { headers: ADMIN });
    t.equal(dec.json.result, 'hunter2');
    t.match(String(dec.headers['cache-control']), /no-store/);
});
