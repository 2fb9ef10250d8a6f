/*
 * Error reports to the maintainers through js-controller's sentry plugin, against real storage and a
 * local envelope receiver standing in for the maintainers' server (no network). The adapter runs from
 * an installed copy whose io-package.json points the DSN at the receiver and whose commands folder
 * holds one test-only command that fails with a code error.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import t from 'tap';
import { PROJECT_ROOT } from '../scripts/embedded-storage';
import { redact, scrub } from '../src/instance/error-reports';
import { startIobroker, type IobFixture } from './support/iobroker';

const SECRET = 'S3cretV4lueThatMustNeverLeave';
const PASSWORD = 'pw-never-sent-1234567890';

/** A copy of the adapter as an installation holds it, with the DSN and the failing command. */
function installCopy(dsn: string): string {
    // the plugin only reports errors whose stack runs through a folder named like the package
    const root = join(mkdtempSync(join(tmpdir(), 'rest-api-reports-')), 'iobroker.rest-api');
    mkdirSync(root);
    const io = JSON.parse(readFileSync(join(PROJECT_ROOT, 'io-package.json'), 'utf8'));
    io.common.plugins = { sentry: { ...io.common.plugins?.sentry, dsn } };
    writeFileSync(join(root, 'io-package.json'), JSON.stringify(io, null, 2));
    for (const entry of ['package.json', 'build', 'docs-page', 'admin']) {
        cpSync(join(PROJECT_ROOT, entry), join(root, entry), { recursive: true });
    }
    symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(root, 'node_modules'), 'dir');
    writeFileSync(
        join(root, 'build', 'commands', 'crashTest.js'),
        `'use strict';
const { Type } = require('@sinclair/typebox');
exports.default = {
    name: 'crashTest',
    summary: 'test only: fails with a code error that names a value, a user and a time',
    params: Type.Object({ value: Type.Optional(Type.String()), owner: Type.Optional(Type.String()) }),
    permission: null,
    effect: 'read',
    envelope: 'result',
    result: Type.Null(),
    handler({ value, owner }) {
        throw new TypeError('cannot handle "' + value + '" of system.user.' + owner + ' at ' + Date.now());
    },
};
`,
    );
    return root;
}

interface Receiver {
    url: string;
    bodies: string[];
    events(): Array<Record<string, any>>;
    close(): void;
}

/** Records every envelope; each is newline-separated JSON, gzip when large. */
async function startReceiver(): Promise<Receiver> {
    const bodies: string[] = [];
    const server: Server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', c => chunks.push(c));
        req.on('end', () => {
            const raw = Buffer.concat(chunks);
            bodies.push((req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8'));
            res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
        });
    });
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    return {
        url: `http://publickey@127.0.0.1:${port}/189`,
        bodies,
        events: () =>
            bodies
                .flatMap(body => body.split('\n'))
                .filter(Boolean)
                .map(line => {
                    try {
                        return JSON.parse(line);
                    } catch {
                        return {};
                    }
                })
                .filter(item => item.exception),
        close: () => server.close(),
    };
}

async function until(check: () => boolean, ms: number): Promise<boolean> {
    const end = Date.now() + ms;
    while (!check() && Date.now() < end) {
        await new Promise(r => setTimeout(r, 50));
    }
    return check();
}

t.test('scrubbing: no request, breadcrumbs, variables, secrets, values or user names', async t => {
    t.equal(redact(`cannot handle "${SECRET}" of system.user.bob at 1732312312`), 'cannot handle "<redacted>" of system.user.<redacted> at <n>');
    t.equal(redact("Cannot read properties of null (reading 'state')"), "Cannot read properties of null (reading '<redacted>')");
    t.equal(redact('GET /v1/state/a?user=admin&pass=x failed'), 'GET /v1/state/a?<redacted> failed');
    t.equal(redact('Authorization: Bearer abc.def'), 'Authorization: Bearer <redacted>');
    t.notMatch(redact(`token ${'a1B2'.repeat(8)} used`), /a1B2/);
    const event = scrub({
        message: `value "${SECRET}"`,
        request: { url: '/v1/state/x?pass=1', headers: { authorization: 'Basic eA==' }, data: '{"val":1}' },
        breadcrumbs: [{ message: 'GET http://127.0.0.1/?token=x' }],
        extra: { body: SECRET },
        server_name: 'my-house',
        transaction: 'GET /v1/object/system.user.bob',
        user: { id: 'uuid-1', username: 'bob', ip_address: '192.168.1.2' },
        exception: { values: [{ value: `bad '${SECRET}'`, stacktrace: { frames: [{ vars: { secret: SECRET } }] } }] },
    });
    t.notMatch(JSON.stringify(event), new RegExp(`${SECRET}|bob|192\\.168|my-house|pass=|eA==`));
    t.same(event.user, { id: 'uuid-1' }, 'only the installation id the plugin sets');
    t.same(event.breadcrumbs, []);
});

t.test('against real storage and a local receiver', async t => {
    const receiver = await startReceiver();
    const root = installCopy(receiver.url);
    // the plugin switches itself off on CI machines; this test is the one place that wants it on
    const iob: IobFixture = await startIobroker({ adapterRoot: root, env: { CI: undefined, TRAVIS: undefined, APPVEYOR: undefined }, native: { checkInterval: 0 } });
    t.teardown(async () => {
        await iob.stop();
        receiver.close();
        rmSync(join(root, '..'), { recursive: true, force: true });
    });
    const config = await iob.storage.objects.getObjectAsync('system.config');
    const setDiag = (diag: string) => iob.storage.objects.setObjectAsync('system.config', { ...config, common: { ...config.common, diag } });
    const PLUGIN_STATE = 'system.adapter.rest-api.0.plugins.sentry.enabled';
    const setPlugin = (val: boolean) => iob.storage.states.setStateAsync(PLUGIN_STATE, { val, ack: true, from: 'system.adapter.test.0' });
    const crash = () =>
        iob.request(`/v1/command/crashTest?value=${SECRET}&owner=bob&user=admin&pass=${PASSWORD}`, { headers: { Authorization: `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}` } });

    await setDiag('extended');
    await setPlugin(true);
    await iob.restart();

    await t.test('a code error reaches the receiver with its route, without any secret or value', async t => {
        const res = await crash();
        t.equal(res.status, 500);
        t.match(res.json.error, /^cannot handle /, 'the client still gets its JSON error');
        t.ok(await until(() => receiver.events().length > 0, 10_000), 'an event arrived');
        const [event] = receiver.events();
        t.equal(event.tags?.command, 'crashTest');
        t.equal(event.tags?.route, '/v1/command/{name}');
        t.equal(event.exception.values[0].type, 'TypeError');
        t.match(event.exception.values[0].value, /^cannot handle "<redacted>" of system\.user\.<redacted> at <n>$/);
        const everything = receiver.bodies.join('\n');
        for (const secret of [SECRET, PASSWORD, 'pass=', Buffer.from(`admin:${PASSWORD}`).toString('base64'), 'bob']) {
            const at = everything.indexOf(secret);
            t.ok(at === -1, `never sent: ${secret.slice(0, 12)}${at === -1 ? '' : `, found in: ${everything.slice(Math.max(0, at - 150), at + 50)}`}`);
        }
        t.notOk(event.request, 'no request data');
        const alive = await iob.request('/v1/command/getVersion');
        t.equal(alive.status, 200, 'the adapter keeps serving');
    });

    await t.test('client mistakes (4xx) are never reported', async t => {
        const before = receiver.events().length;
        t.equal((await iob.request('/v1/state/0_userdata.0.nothing.here')).status, 404);
        t.equal((await iob.request('/v1/command/getState')).status, 422);
        t.equal((await iob.request('/v1/state/x', { method: 'PATCH', raw: '{bad', headers: { 'Content-Type': 'application/json' } })).status, 400);
        t.equal((await crash()).status, 500, 'a last code error as a marker');
        t.ok(await until(() => receiver.events().length > before, 10_000));
        t.equal(receiver.events().length, before + 1, 'only the marker arrived');
    });

    await t.test('switched off by the instance plugin state: nothing arrives', async t => {
        await setPlugin(false);
        await iob.restart();
        const before = receiver.bodies.length;
        t.equal((await crash()).status, 500);
        await new Promise(r => setTimeout(r, 2000));
        t.equal(receiver.bodies.length, before, 'nothing sent');
    });

    await t.test('switched off host-wide by diag none: nothing arrives', async t => {
        await setPlugin(true);
        await setDiag('none');
        await iob.restart();
        const before = receiver.bodies.length;
        t.equal((await crash()).status, 500);
        await new Promise(r => setTimeout(r, 2000));
        t.equal(receiver.bodies.length, before, 'nothing sent');
    });
});
