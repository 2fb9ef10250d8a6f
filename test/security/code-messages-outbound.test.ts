/*
 * Paths a review of the access policy found, tried as an attacker would: code the script engines run
 * with every right, messages to a history instance beyond its reads and changes, and a foreign page
 * making the server GET a device URL through httpGet with auth off.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { createState, createUser } from '../support/iobroker';
import { startInProcess, type InProcessApp, type InProcessHost } from '../support/in-process';
import { basic } from '../support/raw-request';
import { fakeInstance } from '../support/fake-instance';

const MALLORY = basic('mallory', 'm-pass');
const READER = basic('reader', 'r-pass');

let host: InProcessHost;
let app: InProcessApp;

t.before(async () => {
    host = await startInProcess();
    await createUser(host.storage, 'mallory', { object: { read: true, write: true, list: true, delete: true }, state: { read: true, write: true, list: true, delete: true } }, 'm-pass');
    await createUser(host.storage, 'reader', { state: { read: true, list: true }, object: { read: true }, other: { sendto: true } }, 'r-pass');
    app = await host.app({ auth: true });
});
t.teardown(async () => {
    await app?.close();
    await host?.stop();
});

t.test('a user with object.write cannot store code that the javascript adapter runs with full rights', async t => {
    // the javascript adapter starts every enabled `script` object under script.js.* as the administrator would
    const script = { type: 'script', common: { name: 'evil', engine: 'system.adapter.javascript.0', engineType: 'Javascript/js', enabled: true, source: "exec('id')" }, native: {} };
    const res = await app.request('/v1/command/setObject', { method: 'POST', headers: MALLORY, body: { id: 'script.js.evil', obj: script } });
    t.equal(res.status, 403, 'setObject of a script object');
    t.notOk(await host.storage.objects.getObjectAsync('script.js.evil'), 'no script object stored');
    const decoy = await app.request('/v1/command/setObject', { method: 'POST', headers: MALLORY, body: { id: '0_userdata.0.evil', obj: script } });
    t.equal(decoy.status, 403, 'nor under another id');
    await createState(host.storage, 'javascript.0.scriptEnabled.admins', { type: 'boolean' }, false);
    const enable = await app.request('/v1/state/javascript.0.scriptEnabled.admins', { method: 'PATCH', headers: MALLORY, body: { val: true } });
    t.equal(enable.status, 403, "nor switch on an administrator's script");
    t.equal((await host.storage.states.getStateAsync('javascript.0.scriptEnabled.admins'))?.val, false);
});

t.test('history messages other than the listed writes (raw query, stop) need more than read rights', async t => {
    const sql = await fakeInstance({ storage: host.storage } as never, 'sql.0', () => ({ result: [] }));
    await host.storage.objects.extendObjectAsync('system.adapter.sql.0', { common: { getHistory: true, type: 'storage' } });
    try {
        for (const [message, data] of [
            ['query', 'DELETE FROM ts_number'],
            ['stopInstance', null],
        ] as const) {
            const res = await app.request('/v1/sendto/sql.0', { method: 'POST', headers: READER, body: { message, data } });
            t.equal(res.status, 403, `${message} by a reader`);
        }
        t.same(sql.received, [], 'the history instance got none of them');
    } finally {
        await sql.close();
    }
});

t.test('with auth off, a foreign page cannot make the server GET a device URL (httpGet is a GET that acts)', async t => {
    const hits: string[] = [];
    const device = createServer((req, res) => {
        hits.push(req.url ?? '');
        res.end('ok');
    });
    await new Promise<void>(resolve => device.listen(0, '127.0.0.1', resolve));
    // loopback stands in for a LAN device (192.168.x.y), which httpGet reaches by default
    const open = await host.app({ auth: false, httpGetAllowLocal: true }, 'rest-api.1');
    try {
        const url = `http://127.0.0.1:${(device.address() as AddressInfo).port}/relay/0?turn=on`;
        const path = `/v1/command/httpGet?url=${encodeURIComponent(url)}`;
        const image = await open.request(path, { headers: { Host: '127.0.0.1:8093', 'Sec-Fetch-Site': 'cross-site' } });
        t.equal(image.status, 403, '<img src> from another site');
        const fetched = await open.request(path, { headers: { Host: '127.0.0.1:8093', Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site' } });
        t.equal(fetched.status, 403, 'no-cors fetch from another origin');
        t.same(hits, [], 'the device got no request');
    } finally {
        await open.close();
        device.close();
    }
});
