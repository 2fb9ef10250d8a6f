/*
 * The upgrade from 4.0.2 as a user makes it (docs/en/migrating-from-4.0.2.md): a real js-controller
 * host with rest-api 4.0.2 from npm in two configured instances, then `iobroker url <our tarball>`
 * in place, then back with `iobroker url iobroker.rest-api@4.0.2`. Runs on Node 22 only: once per
 * CI run is enough, and it is one of the longest files.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { PROJECT_ROOT } from '../scripts/embedded-storage';
import { notOnThisNode } from './support/once-per-ci';
import { startHookReceiver, type HookReceiver } from './support/hook-receiver';
import { freePort } from './support/ports';
import {
    connectClients,
    layOutHost,
    installedPackages,
    RELEASE,
    run,
    type Clients,
    type Host,
} from './support/upgrade-host';

const VERSION: string = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')).version;
const STATE = '0_userdata.0.upgrade.value';
const ADMIN_PW = 'admin-secret';
const LIMITED_PW = 'limited-secret';
// a fresh machine (and every .ci/run, which starts as one) installs the host first: 140 s of npm under
// CI's load, then about 200 s of steps; the runner ends any file at 480 s
t.setTimeout(460_000);

let host: Host | undefined;
let db: Clients | undefined;
let receiver: HookReceiver | undefined;
const ports = { auth: 0, open: 0 };

interface Answer {
    status: number;
    type: string;
    text: string;
    json: any;
}

/** One request to an instance on loopback, bounded; the body is sent as JSON unless it is a string. */
async function call(
    port: number,
    path: string,
    init: { method?: string; body?: unknown; headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<Answer> {
    const headers: Record<string, string> = { ...init.headers };
    let body: string | undefined;
    if (typeof init.body === 'string') {
        body = init.body;
    } else if (init.body !== undefined) {
        body = JSON.stringify(init.body);
        headers['Content-Type'] = 'application/json';
    }
    const res = await fetch(`http://127.0.0.1:${port}${path}`, {
        method: init.method ?? 'GET',
        headers,
        body,
        signal: AbortSignal.timeout(init.timeoutMs ?? 10_000),
    });
    const text = await res.text();
    const type = res.headers.get('content-type') ?? '';
    let json: unknown;
    try {
        json = JSON.parse(text);
    } catch {
        json = undefined;
    }
    return { status: res.status, type, text, json };
}

const basic = (user: string, pw: string): Record<string, string> => ({
    Authorization: `Basic ${Buffer.from(`${user}:${pw}`).toString('base64')}`,
});
const bearer = (token: string): Record<string, string> => ({ Authorization: `Bearer ${token}` });

/** Waits until `check` holds, bounded; the error names what was awaited and the last answer. */
async function until<T>(
    what: string,
    timeoutMs: number,
    probe: () => Promise<T>,
    check: (value: T) => boolean,
): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    let last: unknown;
    for (;;) {
        try {
            last = await probe();
            if (check(last as T)) {
                return last as T;
            }
        } catch (err) {
            last = (err as Error).message;
        }
        if (Date.now() > deadline) {
            throw new Error(
                `${what}: not within ${timeoutMs / 1000} s; last: ${JSON.stringify(last)?.slice(0, 500)}\nhost log:\n${host?.log().slice(-3000)}`,
            );
        }
        await new Promise(resolve => setTimeout(resolve, 250));
    }
}

/** Which rest-api answers on `port`: 4.0.2 answers an unknown path with Express' HTML page, 5 with JSON. */
async function servedBy(port: number): Promise<string> {
    const res = await call(port, '/no-such-path', { timeoutMs: 3000 });
    return res.type.includes('json')
        ? VERSION
        : res.type.includes('html')
          ? RELEASE
          : `unknown (${res.status} ${res.type})`;
}

const bothServedBy = (version: string, timeoutMs: number): Promise<unknown> =>
    Promise.all(
        Object.values(ports).map(port =>
            until(
                `rest-api ${version} answers on port ${port}`,
                timeoutMs,
                () => servedBy(port),
                v => v === version,
            ),
        ),
    );

// the 20 keys of 4.0.2 as a user saves them in admin: one instance with auth, where the limited user
// logs in, one open instance that runs as that user; the rest keep their defaults
const settings = (): Record<Name, Record<string, unknown>> => ({
    auth: {
        port: ports.auth,
        bind: '127.0.0.1',
        auth: true,
        ttl: 7200,
        noAdminCommands: true,
        checkInterval: 5000,
        hookTimeout: 2000,
        dataSource: 'history.0',
    },
    open: { port: ports.open, bind: '127.0.0.1', auth: false, defaultUser: 'limited', noUI: true, noCommands: true },
});
type Name = 'auth' | 'open';
const INSTANCE: Record<Name, string> = { auth: 'system.adapter.rest-api.0', open: 'system.adapter.rest-api.1' };
const natives: Partial<Record<Name, Record<string, unknown>>> = {};
const tokens: Record<string, { access_token: string; refresh_token: string }> = {};
const SID = 'upgrade-poller';

const stateObject = (name: string): Record<string, unknown> => ({
    type: 'state',
    common: { name, type: 'number', role: 'value', read: true, write: true },
    native: {},
});

async function token(
    user: string,
    pw: string,
): Promise<{ access_token: string; refresh_token: string; expires_in: number }> {
    const res = await call(ports.auth, '/oauth/token', {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
            grant_type: 'password',
            username: user,
            password: pw,
            client_id: 'upgrade-test',
        }).toString(),
    });
    if (res.status !== 200 || typeof res.json?.access_token !== 'string') {
        throw new Error(`POST /oauth/token for ${user}: ${res.status} ${res.text}`);
    }
    return res.json;
}

const hookEvents = (): unknown[] => receiver!.received.map(d => JSON.parse(d.body || 'null'));
const hookEventsWith = (val: number): unknown[] =>
    hookEvents().filter((e: any) => e?.id === STATE && e.state?.val === val);

/** Registers a URL hook on the instance with auth, writes `val` and waits until the receiver has its event. */
async function hookDelivers(t: Test, val: number, registered: string, delivers: string): Promise<void> {
    const admin = basic('admin', ADMIN_PW);
    const res = await call(ports.auth, '/v1/states/subscribe', {
        method: 'POST',
        headers: admin,
        body: { url: receiver!.url, pattern: '0_userdata.0.upgrade.*', method: 'POST' },
    });
    t.equal(res.status, 200, `${registered}: ${res.text}`);
    await call(ports.auth, `/v1/state/${STATE}`, { method: 'PATCH', headers: admin, body: { val, ack: true } });
    await until(delivers, 10_000, async () => hookEventsWith(val), events => events.length > 0);
}

const elsewhere = notOnThisNode('the upgrade');
if (elsewhere) {
    t.plan(0, elsewhere);
} else {
    t.before(async () => {
        let since = Date.now();
        const lap = (what: string): void => {
            t.comment(`${what}: ${Date.now() - since} ms`);
            since = Date.now();
        };
        const packages = await installedPackages();
        lap('npm install of js-controller, admin and 4.0.2 (once, then from the temp folder)');
        host = await layOutHost(packages);
        lap('copy of the installation, setup first, admin.0 off');
        ports.auth = await freePort();
        ports.open = await freePort();
        await host.startController();
        db = await connectClients(host);
        lap('js-controller serving its DBs');
        receiver = await startHookReceiver();
    });
    t.teardown(async () => {
        const started = Date.now();
        await db?.close();
        receiver?.close();
        await host?.stop();
        t.comment(`teardown (js-controller and its instances stopped, host folder removed): ${Date.now() - started} ms`);
    });
    defineSteps();
}

function defineSteps(): void {
    t.test('4.0.2 from npm in two instances, configured as in admin', async t => {
        const h = host!;
        await h.cli(['add', 'rest-api', '0', '--enabled', 'false', '--port', String(ports.auth)]);
        await Promise.all([
            h.cli(['add', 'rest-api', '1', '--enabled', 'false', '--port', String(ports.open)]),
            h.cli(['user', 'add', 'limited', '--ingroup', 'user', '--password', LIMITED_PW]),
            h.cli(['user', 'passwd', 'admin', '--password', ADMIN_PW]),
        ]);
        for (const [name, native] of Object.entries(settings()) as Array<[Name, Record<string, unknown>]>) {
            // what admin's settings page does on save: the instance object with the new native, enabled
            await db!.objects.extendObjectAsync(INSTANCE[name], { common: { enabled: true }, native });
            natives[name] = (await db!.objects.getObjectAsync(INSTANCE[name])).native;
        }
        t.equal(Object.keys(natives.auth!).length, 20, '4.0.2 has 20 settings');
        t.not(
            (await differingAdminFiles()).length,
            0,
            "4.0.2's settings page is not ours (the check after the upgrade means something)",
        );
        await bothServedBy(RELEASE, 60_000);
        t.pass('both instances run 4.0.2');
    });

    t.test('4.0.2 in use: tokens, values, denials, a polling session and a URL hook', async t => {
        const admin = basic('admin', ADMIN_PW);
        const made = await token('admin', ADMIN_PW);
        t.ok(made.expires_in > 7100 && made.expires_in <= 7200, `ttl 7200 gives expires_in ${made.expires_in}`);
        tokens.admin = made;
        tokens.limited = await token('limited', LIMITED_PW);
        tokens.refresh = await token('admin', ADMIN_PW);
        let res = await call(ports.auth, `/v1/object/${STATE}`, {
            method: 'PUT',
            headers: admin,
            body: stateObject('upgrade value'),
        });
        t.equal(res.status, 200, `object created: ${res.text}`);
        res = await call(ports.auth, `/v1/state/${STATE}`, {
            method: 'PATCH',
            headers: bearer(tokens.admin.access_token),
            body: { val: 42, ack: true },
        });
        t.equal(res.status, 200, `value written with the token: ${res.text}`);
        t.same(await observe(), expected(RELEASE), 'the settings and rights have their effect on 4.0.2');
        // the open instance runs as the limited user: a polling session on the value
        res = await call(ports.open, `/v1/polling?sid=${SID}&connect&timeout=30000`);
        t.equal(res.status, 200, `polling session: ${res.text}`);
        res = await call(ports.open, `/v1/state/${STATE}/subscribe?sid=${SID}&method=polling`);
        t.equal(res.status, 200, `polling subscription: ${res.text}`);
        const poll = call(ports.open, `/v1/polling?sid=${SID}`, { timeoutMs: 35_000 });
        res = await call(ports.auth, `/v1/state/${STATE}`, {
            method: 'PATCH',
            headers: admin,
            body: { val: 43, ack: true },
        });
        t.equal(res.status, 200);
        res = await poll;
        t.equal(res.json?.state?.val, 43, `the poll got the change: ${res.text}`);
        await hookDelivers(t, 44, 'hook registered', 'the hook delivers the change');
        t.pass('the hook delivered');
    });

    t.test(`iobroker url <the packed ${VERSION}>: the upgrade in place`, async t => {
        const h = host!;
        const packed = await run(
            'npm',
            ['pack', '--json', '--ignore-scripts', '--pack-destination', h.root],
            PROJECT_ROOT,
            60_000,
        );
        t.equal(packed.code, 0, `npm pack: ${packed.output.slice(-500)}`);
        const tarball = join(h.root, JSON.parse(packed.output.slice(packed.output.indexOf('[')))[0].filename);
        // a poll held by 4.0.2 over the upgrade, and the hook receiver, hear 4.0.2 say goodbye. Changes
        // made since the session's last poll (the hook's write) are answered first, at once: polled past
        const heldPoll = (async (): Promise<Answer> => {
            for (let queued = 0; ; queued++) {
                const answer = await call(ports.open, `/v1/polling?sid=${SID}`, { timeoutMs: 60_000 }).catch(
                    (err: Error) => ({ status: 0, text: err.message }) as Answer,
                );
                if (!answer.json?.state || queued === 5) {
                    return answer;
                }
            }
        })();
        receiver!.received = [];
        const started = Date.now();
        // js-controller's CLI ends with 0 also when npm failed: its own words tell
        const said = await h.cli(['url', tarball], 180_000);
        t.notMatch(
            said,
            /Could not install|Cannot install/,
            `iobroker url installed the tarball:\n${said.slice(-2000)}`,
        );
        await bothServedBy(VERSION, 60_000);
        t.comment(`iobroker url to both instances answering on ${VERSION}: ${Date.now() - started} ms`);
        for (const name of Object.keys(INSTANCE) as Name[]) {
            const instance = await db!.objects.getObjectAsync(INSTANCE[name]);
            t.equal(instance.common.version, VERSION, `${INSTANCE[name]} is on ${VERSION}`);
            t.same(
                pick(instance.native, Object.keys(natives[name]!)),
                natives[name],
                `${INSTANCE[name]}: every 4.0.2 setting keeps its value`,
            );
        }
        t.same(await observe(), expected(VERSION), `the settings and rights have their effect on ${VERSION}`);
        const held = await heldPoll;
        t.match(
            held.text,
            '{"disconnect":true}',
            `the poll 4.0.2 held was told {"disconnect":true}: ${held.status} ${held.text}`,
        );
        t.ok(
            hookEvents().some((e: any) => e?.disconnect === true),
            'the hook was told {"disconnect":true} by 4.0.2',
        );
    });

    t.test(`credentials and tokens made by 4.0.2 work on ${VERSION}`, async t => {
        let res = await call(ports.auth, `/v1/state/${STATE}`, { headers: bearer(tokens.limited.access_token) });
        t.equal(res.status, 200, `the limited user's 4.0.2 access token reads: ${res.text}`);
        t.equal(res.json?.val, 44, 'the last value 4.0.2 wrote');
        res = await call(ports.auth, '/oauth/token', {
            method: 'POST',
            headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({
                grant_type: 'refresh_token',
                refresh_token: tokens.refresh.refresh_token,
                client_id: 'upgrade-test',
            }).toString(),
        });
        t.equal(res.status, 200, `a 4.0.2 refresh token is exchanged: ${res.text}`);
        t.ok(
            res.json?.expires_in > 7100 && res.json?.expires_in <= 7200,
            `with the ttl of 7200: ${res.json?.expires_in}`,
        );
        res = await call(ports.auth, `/v1/state/${STATE}`, {
            method: 'PATCH',
            headers: bearer(res.json?.access_token),
            body: { val: 45, ack: true },
        });
        t.equal(res.status, 200, `the new access token writes: ${res.text}`);
        res = await call(ports.auth, `/v1/state/${STATE}`, { headers: bearer(tokens.refresh.access_token) });
        t.equal(
            res.status,
            401,
            `the access token of the refreshed pair is revoked (migration notes, "Token refresh"): ${res.text}`,
        );
        t.same(await differingAdminFiles(), [], `the settings page (the instance's admin files) is ${VERSION}'s`);
    });

    t.test('a hook and a polling session of 4.0.2 are gone; registered again they work', async t => {
        const admin = basic('admin', ADMIN_PW);
        receiver!.received = [];
        const oldPoll = call(ports.open, `/v1/polling?sid=${SID}`, { timeoutMs: 3000 }).catch(() => undefined);
        let res = await call(ports.auth, `/v1/state/${STATE}`, {
            method: 'PATCH',
            headers: admin,
            body: { val: 46, ack: true },
        });
        t.equal(res.status, 200);
        const old = await oldPoll;
        t.notOk(
            old?.json?.state,
            `a poll with the 4.0.2 session's sid hears nothing of its subscription: ${old?.text}`,
        );
        t.same(
            hookEventsWith(46),
            [],
            'the hook registered with 4.0.2 is gone (migration notes, "Hooks over the upgrade")',
        );
        await hookDelivers(t, 47, 'the hook registered again', 'the hook registered again delivers');
        // checkInterval 5000 of 4.0.2: the receiver is asked {"test":true} at that pace
        await until(
            'the hook check of checkInterval',
            12_000,
            async () => hookEvents().filter((e: any) => e?.test === true).length,
            n => n >= 2,
        );
        const sid = `${SID}-again`;
        await call(ports.open, `/v1/polling?sid=${sid}&connect&timeout=30000`);
        res = await call(ports.open, `/v1/state/${STATE}/subscribe?sid=${sid}&method=polling`);
        t.equal(res.status, 200, `subscribed again as 4.0.2's example client does: ${res.text}`);
        const poll = call(ports.open, `/v1/polling?sid=${sid}`, { timeoutMs: 35_000 });
        await call(ports.auth, `/v1/state/${STATE}`, { method: 'PATCH', headers: admin, body: { val: 48, ack: true } });
        res = await poll;
        t.equal(res.json?.state?.val, 48, `the new session hears the change: ${res.text}`);
        t.same(errorLines(host!.log()), [], 'no error in the log');
    });

    t.test(`iobroker url iobroker.rest-api@${RELEASE}: back to ${RELEASE}`, async t => {
        const started = Date.now();
        const said = await host!.cli(['url', `iobroker.rest-api@${RELEASE}`], 180_000);
        t.notMatch(
            said,
            /Could not install|Cannot install/,
            `iobroker url installed ${RELEASE}:\n${said.slice(-2000)}`,
        );
        await bothServedBy(RELEASE, 60_000);
        t.comment(`iobroker url to both instances answering on ${RELEASE}: ${Date.now() - started} ms`);
        for (const name of Object.keys(INSTANCE) as Name[]) {
            t.equal(
                (await db!.objects.getObjectAsync(INSTANCE[name])).common.version,
                RELEASE,
                `${INSTANCE[name]} is on ${RELEASE}`,
            );
        }
        t.same(await observe(), expected(RELEASE), `${RELEASE} serves with its settings`);
        const res = await call(ports.open, `/v1/state/${STATE}`);
        t.equal(res.json?.val, 48, `values written by ${VERSION} read back: ${res.text}`);
        t.same(errorLines(host!.log()), [], 'no error in the log');
    });
}

/** The files of our admin/ folder that the host does not hold byte for byte as the instance's settings page. */
async function differingAdminFiles(): Promise<string[]> {
    const dir = join(PROJECT_ROOT, 'admin');
    const differing: string[] = [];
    for (const name of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
        if (statSync(join(dir, name)).isDirectory()) {
            continue;
        }
        const stored = await db!.objects.readFile('rest-api.admin', name).catch(() => undefined);
        if (!stored || !Buffer.from(stored.file).equals(readFileSync(join(dir, name)))) {
            differing.push(name);
        }
    }
    return differing;
}

const pick = (from: Record<string, unknown>, keys: string[]): Record<string, unknown> =>
    Object.fromEntries(keys.map(key => [key, from[key]]));

/** The log lines js-controller and the instances wrote at level error. */
// (a level may be wrapped in colour codes, which hold no space)
const errorLines = (log: string): string[] => log.split('\n').filter(line => /^\S+ \S+\s+- \S*error\S*: /.test(line));

// the status of each probe on 4.0.2 and on 5; they differ only where the migration notes say so
const STATUSES: Record<string, [number, number]> = {
    'auth: no credentials': [401, 401],
    'auth: admin token': [200, 200],
    'auth: limited token': [200, 200],
    'auth: limited Basic': [200, 200],
    'auth: limited writes an object': [403, 403],
    'auth: limited token writes an object': [403, 403],
    'auth: limited sendto': [403, 403],
    'auth: wrong password': [401, 401],
    'auth: admin command (noAdminCommands)': [404, 404],
    'auth: common command': [200, 200],
    // "History instance unknown …": 500 on 4.0.2, 404 on 5
    'auth: history (dataSource history.0)': [500, 404],
    'auth: docs page': [200, 200],
    'open: read': [200, 200],
    'open: writes an object': [403, 403],
    'open: command (noCommands)': [404, 404],
    'open: docs page (noUI)': [404, 404],
};

const expected = (version: string): Record<string, number> =>
    Object.fromEntries(Object.entries(STATUSES).map(([name, [old, now]]) => [name, version === RELEASE ? old : now]));

/** Status of each probe of a setting's effect or a user's rights. */
async function observe(): Promise<Record<string, number>> {
    const admin = basic('admin', ADMIN_PW);
    const limited = basic('limited', LIMITED_PW);
    const other = `0_userdata.0.upgrade.other`;
    const probes: Record<string, () => Promise<Answer>> = {
        'auth: no credentials': () => call(ports.auth, `/v1/state/${STATE}`),
        'auth: admin token': () =>
            call(ports.auth, `/v1/state/${STATE}`, { headers: bearer(tokens.admin.access_token) }),
        'auth: limited token': () =>
            call(ports.auth, `/v1/state/${STATE}`, { headers: bearer(tokens.limited.access_token) }),
        'auth: limited Basic': () => call(ports.auth, `/v1/state/${STATE}`, { headers: limited }),
        'auth: limited writes an object': () =>
            call(ports.auth, `/v1/object/${other}`, { method: 'PUT', headers: limited, body: stateObject('x') }),
        'auth: limited token writes an object': () =>
            call(ports.auth, `/v1/object/${other}`, {
                method: 'PUT',
                headers: bearer(tokens.limited.access_token),
                body: stateObject('x'),
            }),
        'auth: limited sendto': () => call(ports.auth, '/v1/sendto/admin.0?message=x', { headers: limited }),
        'auth: wrong password': () => call(ports.auth, `/v1/state/${STATE}`, { headers: basic('limited', 'wrong') }),
        'auth: admin command (noAdminCommands)': () =>
            call(ports.auth, '/v1/command/getCompactAdapters', { headers: admin }),
        'auth: common command': () => call(ports.auth, '/v1/command/getObject?id=system.config', { headers: admin }),
        'auth: history (dataSource history.0)': () => call(ports.auth, `/v1/getHistory/${STATE}`, { headers: admin }),
        'auth: docs page': () => call(ports.auth, '/api-doc/'),
        'open: read': () => call(ports.open, `/v1/state/${STATE}`),
        'open: writes an object': () =>
            call(ports.open, `/v1/object/${other}`, { method: 'PUT', body: stateObject('x') }),
        'open: command (noCommands)': () => call(ports.open, '/v1/command/getObject?id=system.config'),
        'open: docs page (noUI)': () => call(ports.open, '/api-doc/'),
    };
    const seen: Record<string, number> = {};
    for (const [name, probe] of Object.entries(probes)) {
        seen[name] = (await probe()).status;
    }
    return seen;
}
