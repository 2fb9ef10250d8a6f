/*
 * Aliases read and write their source state with js-controller's own rights: a limited user must
 * not reach a state it may not read through an `alias.` id (single reads, listings, events, history),
 * nor make an alias whose source it may not read or write. An alias to a readable state still works,
 * and the administrator reads every alias.
 */
import t from 'tap';
import { createState, createUser } from '../support/iobroker';
import { startInProcess, type InProcessApp, type InProcessHost } from '../support/in-process';
import { basic } from '../support/raw-request';
import { openSse } from '../support/sse-client';

const ADMIN = basic('admin', 'iobroker');
const BEE = basic('bee', 'b-pass');
const PRIVATE = '0_userdata.0.at.private';
const OPEN = '0_userdata.0.at.open';
/** Made by the administrator: reading it must not answer what its source holds. */
const SPY = 'alias.0.at.spy';
const FINE = 'alias.0.at.fine';
const SECRET = 424242;
const PRIVATE_ACL = {
    owner: 'system.user.admin',
    ownerGroup: 'system.group.administrator',
    object: 0x644,
    state: 0x600,
};

let host: InProcessHost;
let app: InProcessApp;

function aliasObject(source: unknown): Record<string, unknown> {
    return {
        type: 'state',
        common: { name: 'alias', type: 'number', role: 'state', read: true, write: true, alias: { id: source } },
        native: {},
    };
}

t.before(async () => {
    host = await startInProcess();
    const all = { read: true, write: true, list: true, create: true, delete: true };
    await createUser(host.storage, 'bee', { state: all, object: all, other: { sendto: true } }, 'b-pass');
    await createState(host.storage, PRIVATE, { type: 'number' }, SECRET);
    await host.storage.objects.extendObjectAsync(PRIVATE, { acl: PRIVATE_ACL });
    await createState(host.storage, OPEN, { type: 'number' }, 7);
    for (const [id, source] of [
        [SPY, PRIVATE],
        [FINE, OPEN],
    ]) {
        await host.storage.objects.setObjectAsync(id, { _id: id, ...aliasObject(source) });
    }
    app = await host.app({ auth: true });
});
t.teardown(async () => {
    await app?.close();
    await host?.stop();
});

t.test('a single read through an alias needs read rights on its source', async t => {
    const spy = await app.request(`/v1/state/${SPY}`, { headers: BEE });
    t.equal(spy.status, 403, `the alias of a private state: ${spy.text.slice(0, 200)}`);
    t.notMatch(spy.text, String(SECRET));
    const value = await app.request(`/v1/state/${SPY}/plain`, { headers: BEE });
    t.notMatch(value.text, String(SECRET), `its plain value: ${value.status}`);
    const fine = await app.request(`/v1/state/${FINE}`, { headers: BEE });
    t.equal(fine.status, 200, 'an alias of a readable state is read');
    t.equal(fine.json?.val, 7);
    const admin = await app.request(`/v1/state/${SPY}`, { headers: ADMIN });
    t.equal(admin.json?.val, SECRET, 'the administrator reads it');
});

t.test('listings leave such aliases out, a list naming one is refused', async t => {
    const listing = await app.request('/v1/states?filter=alias.0.at.*', { headers: BEE });
    t.equal(listing.status, 200);
    t.same(Object.keys(listing.json ?? {}).sort(), [FINE], `only the readable alias: ${listing.text.slice(0, 200)}`);
    const pattern = await app.request('/v1/command/getForeignStates?pattern=alias.0.at.*', { headers: BEE });
    t.notMatch(pattern.text, String(SECRET), `getForeignStates of a pattern: ${pattern.status}`);
    t.notMatch(pattern.text, SPY);
    const list = await app.request('/v1/command/getForeignStates', {
        method: 'POST',
        headers: BEE,
        body: { pattern: [FINE, SPY] },
    });
    t.notMatch(list.text, String(SECRET), `getForeignStates of a list: ${list.status}`);
    const admin = await app.request('/v1/states?filter=alias.0.at.*', { headers: ADMIN });
    t.same(Object.keys(admin.json ?? {}).sort(), [FINE, SPY], 'the administrator lists both');
});

t.test('history of such an alias is refused before the history instance is asked', async t => {
    const res = await app.request(`/v1/getHistory/${SPY}?aggregate=none`, { headers: BEE });
    t.equal(res.status, 403, res.text.slice(0, 200));
    const fine = await app.request(`/v1/getHistory/${FINE}?aggregate=none`, { headers: BEE });
    t.not(
        fine.status,
        403,
        `that of an alias of a readable state gets past the rights: ${fine.status} ${fine.text.slice(0, 100)}`,
    );
});

t.test('events of an alias are delivered only with read rights on its source', async t => {
    const base = await app.serve();
    const bee = await openSse(`${base}/v1/events?pattern=alias.0.at.*`, BEE);
    const admin = await openSse(`${base}/v1/events?pattern=alias.0.at.*`, ADMIN);
    const sid = 'alias-bee';
    await app.request(`/v1/polling?sid=${sid}&connect&timeout=100`, { headers: BEE });
    const sub = await app.request(`/v1/states/subscribe?sid=${sid}`, {
        method: 'POST',
        headers: BEE,
        body: { method: 'polling', pattern: 'alias.0.at.*' },
    });
    t.equal(sub.status, 200, 'polling subscription');
    await new Promise(r => setTimeout(r, 300));
    await host.storage.states.setStateAsync(PRIVATE, { val: SECRET + 1, ack: true, from: 'system.adapter.test.0' });
    await new Promise(r => setTimeout(r, 200));
    // the open alias's change ends each collection
    await host.storage.states.setStateAsync(OPEN, { val: 8, ack: true, from: 'system.adapter.test.0' });
    const collect = async (stream: typeof bee): Promise<string[]> => {
        const seen: string[] = [];
        for (;;) {
            const block = await stream.nextEvent(5000);
            const event = JSON.parse(block.data ?? '{}');
            seen.push(`${event.id}=${event.state?.val}`);
            if (event.id === FINE && event.state?.val === 8) {
                return seen;
            }
        }
    };
    const adminSaw = await collect(admin);
    t.ok(adminSaw.includes(`${SPY}=${SECRET + 1}`), `the administrator gets the alias's events: ${adminSaw.join(' ')}`);
    const beeSaw = await collect(bee);
    t.notOk(
        beeSaw.some(e => e.startsWith(`${SPY}=`)),
        `the event stream shows no event of it: ${beeSaw.join(' ')}`,
    );
    bee.close();
    admin.close();
    const polled: string[] = [];
    for (let i = 0; i < 20 && !polled.includes(`${FINE}=8`); i++) {
        const res = await app.request(`/v1/polling?sid=${sid}&batch=true&timeout=500`, { headers: BEE });
        const body = res.text ? JSON.parse(res.text) : [];
        for (const e of (Array.isArray(body) ? body : [body]) as Array<{ id?: string; state?: { val?: unknown } }>) {
            polled.push(`${e.id}=${String(e.state?.val)}`);
        }
    }
    t.ok(polled.includes(`${FINE}=8`), `polling delivers the readable alias: ${polled.join(' ')}`);
    t.notOk(
        polled.some(e => e.startsWith(`${SPY}=`)),
        'and nothing of the other',
    );
});

t.test('an alias whose source the caller may not read or write is not created, on any object write', async t => {
    const made = 'alias.0.at.made';
    const cases: Array<[string, string, unknown]> = [
        ['POST', `/v1/object/${made}`, aliasObject(PRIVATE)],
        ['POST', `/v1/object/${made}`, aliasObject({ read: PRIVATE, write: OPEN })],
        ['POST', `/v1/object/${made}`, aliasObject({ read: OPEN, write: PRIVATE })],
    ];
    for (const [method, path, body] of cases) {
        const res = await app.request(path, { method, headers: BEE, body });
        t.equal(res.status, 403, `${method} ${JSON.stringify((body as { common: { alias: unknown } }).common.alias)}`);
    }
    t.equal(await host.storage.objects.getObjectAsync(made), null, 'nothing was made');
    const own = await app.request(`/v1/object/${made}`, { method: 'POST', headers: BEE, body: aliasObject(OPEN) });
    t.ok(own.status < 300, `an alias of a state the user may read and write is made: ${own.status} ${own.text}`);
    const moved = await app.request(`/v1/object/${made}`, {
        method: 'PUT',
        headers: BEE,
        body: { common: { alias: { id: PRIVATE } } },
    });
    t.equal(moved.status, 403, 'pointing it at the private state afterwards is refused');
    for (const [name, obj] of [
        ['setObject', { _id: made, ...aliasObject(PRIVATE) }],
        ['extendObject', { common: { alias: { id: PRIVATE } } }],
    ] as const) {
        const command = await app.request(`/v1/command/${name}`, {
            method: 'POST',
            headers: BEE,
            body: { id: made, obj },
        });
        t.equal(command.status, 403, `so is the command ${name}: ${command.text.slice(0, 200)}`);
    }
    t.equal(
        (await host.storage.objects.getObjectAsync(made))?.common.alias?.id,
        OPEN,
        'the alias still reads the open state',
    );
    const renamed = await app.request(`/v1/object/${made}`, {
        method: 'PUT',
        headers: BEE,
        body: { common: { name: 'renamed' } },
    });
    t.ok(renamed.status < 300, `a change that keeps the source is made: ${renamed.status}`);
    const admin = await app.request('/v1/object/alias.0.at.admin', {
        method: 'POST',
        headers: ADMIN,
        body: aliasObject(PRIVATE),
    });
    t.ok(admin.status < 300, `the administrator makes any alias: ${admin.status}`);
});
