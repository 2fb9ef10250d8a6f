/*
 * Patterns that would stall js-controller's database servers, and read paths that answered more than
 * a single read of the same id: enum members and names of objects the caller may not read.
 */
import t from 'tap';
import { createState, createUser, type HttpAnswer } from '../support/iobroker';
import { startInProcess, type InProcessApp, type InProcessHost } from '../support/in-process';
import { basic } from '../support/raw-request';

const ADMIN = basic('admin', 'iobroker');
const VIEWER = basic('viewer', 'v-pass');
const HIDDEN_ACL = { owner: 'system.user.admin', ownerGroup: 'system.group.administrator', object: 0x600, state: 0x600 };

let host: InProcessHost;
let app: InProcessApp;

t.before(async () => {
    host = await startInProcess();
    await createUser(host.storage, 'viewer', { object: { read: true, list: true, write: true }, state: { read: true, list: true } }, 'v-pass');
    await createState(host.storage, '0_userdata.0.lamp', { type: 'number', name: 'Kitchen Lamp' } as never, 1);
    await createState(host.storage, '0_userdata.0.hidden', { type: 'number', name: 'Secret Heater' } as never, 1);
    await host.storage.objects.extendObjectAsync('0_userdata.0.hidden', { acl: HIDDEN_ACL });
    await host.storage.objects.setObjectAsync('enum.rooms.kitchen', {
        _id: 'enum.rooms.kitchen',
        type: 'enum',
        common: { name: 'Kitchen', members: ['0_userdata.0.lamp', '0_userdata.0.hidden'] },
        native: {},
    } as never);
    app = await host.app({ auth: true });
});
t.teardown(async () => {
    await app?.close();
    await host?.stop();
});

/** Answers within `ms`, or fails: a stalled storage must not hang the test run. */
function within<T>(ms: number, promise: Promise<T>): Promise<T> {
    return Promise.race([promise, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms))]);
}

t.test('thirty stars answer within a second, and the storage stays responsive', async t => {
    const started = Date.now();
    const res = await within(1000, app.request(`/v1/states?filter=${'*'.repeat(30)}!`, { headers: VIEWER }));
    t.equal(res.status, 200, 'runs of * collapse to one: the same ids, matched at once');
    t.same(res.json, {});
    t.ok(Date.now() - started < 1000);
    const after = await within<HttpAnswer>(1000, app.request('/v1/state/0_userdata.0.lamp', { headers: VIEWER }));
    t.equal(after.json.val, 1, 'the next read answers');
    const direct: ioBroker.State | null = await within(1000, host.storage.states.getStateAsync('0_userdata.0.lamp') as Promise<ioBroker.State | null>);
    t.equal(direct?.val, 1, "and so does js-controller's database for other clients");
});

t.test('a pattern that would backtrack is refused with 422 naming its parameter, wherever it enters', async t => {
    const hostile = '*a*a*a*a*!';
    const cases: Array<[string, Parameters<InProcessApp['request']>[1], string]> = [
        [`/v1/states?filter=${encodeURIComponent(hostile)}`, { headers: VIEWER }, 'filter'],
        [`/v1/objects?filter=${encodeURIComponent(hostile)}`, { headers: VIEWER }, 'filter'],
        [`/v1/command/getForeignStates?pattern=${encodeURIComponent(hostile)}`, { headers: VIEWER }, 'pattern'],
        [`/v1/command/getStates?pattern=${encodeURIComponent(hostile)}`, { headers: VIEWER }, 'pattern'],
        [`/v1/command/getForeignObjects?pattern=${encodeURIComponent(hostile)}`, { headers: ADMIN }, 'pattern'],
        [`/v1/events?pattern=${encodeURIComponent(hostile)}`, { headers: VIEWER }, 'pattern'],
        [`/v1/events?objects=${encodeURIComponent(hostile)}`, { headers: VIEWER }, 'objects'],
        ['/v1/states/subscribe', { method: 'POST', headers: VIEWER, body: { url: 'http://127.0.0.1:9/hook', pattern: hostile } }, 'pattern'],
        ['/v1/tokens', { method: 'POST', headers: VIEWER, body: { name: 'evil', scope: { read: [hostile] } } }, 'scope.read[0]'],
        ['/v1/tokens', { method: 'POST', headers: VIEWER, body: { name: 'evil', scope: { write: ['0_userdata.0.*', hostile] } } }, 'scope.write[1]'],
    ];
    for (const [path, options, param] of cases) {
        const res = await within(2000, app.request(path, options));
        t.equal(res.status, 422, `${options?.method ?? 'GET'} ${path}`);
        t.match(res.json?.error, param, `names ${param}`);
    }
    const hooks = await app.request('/v1/states/subscribe?url=http%3A%2F%2F127.0.0.1%3A9%2Fhook', { headers: VIEWER });
    t.notMatch(JSON.stringify(hooks.json), /a\*a/, 'no hook kept the pattern');
    const fine = await app.request(`/v1/states?filter=${encodeURIComponent('0_userdata.*.lamp')}`, { headers: VIEWER });
    t.same(Object.keys(fine.json), ['0_userdata.0.lamp'], 'ordinary patterns still work');
});

t.test('an enum lists only the members the caller may read, on every path', async t => {
    const visible = ['0_userdata.0.lamp'];
    let res = await app.request('/v1/object/enum.rooms.kitchen', { headers: VIEWER });
    t.same(res.json.common.members, visible, 'GET /v1/object');
    res = await app.request('/v1/command/getObject?id=enum.rooms.kitchen', { headers: VIEWER });
    t.same(res.json.result?.common?.members ?? res.json.common?.members, visible, 'getObject');
    res = await app.request('/v1/objects?filter=enum.rooms.*&type=enum', { headers: VIEWER });
    t.same(res.json['enum.rooms.kitchen'].common.members, visible, 'listing');
    res = await app.request('/v1/command/getObjectView?design=system&search=enum&params=' + encodeURIComponent(JSON.stringify({ startkey: 'enum.rooms.', endkey: 'enum.rooms.\u9999' })), { headers: VIEWER });
    const row = (res.json.result?.rows ?? res.json.rows ?? []).find((r: { id: string }) => r.id === 'enum.rooms.kitchen');
    t.same(row?.value?.common?.members, visible, 'getObjectView');
    res = await app.request('/v1/command/getObjects?list=' + encodeURIComponent(JSON.stringify(['enum.rooms.kitchen'])), { headers: VIEWER });
    t.same(res.json.result?.['enum.rooms.kitchen']?.common?.members ?? res.json['enum.rooms.kitchen']?.common?.members, visible, 'getObjects');
    res = await app.request('/v1/object/enum.rooms.kitchen', { headers: ADMIN });
    t.same(res.json.common.members, ['0_userdata.0.lamp', '0_userdata.0.hidden'], 'the administrator sees all');

    res = await app.request('/v1/object/enum.rooms.kitchen', { method: 'PUT', headers: VIEWER, body: { common: { name: 'Kitchen 2' } } });
    t.equal(res.status, 200);
    t.same(res.json.common.members, visible, 'the merge answers the visible members');
    const stored = await host.storage.objects.getObjectAsync('enum.rooms.kitchen');
    t.same(stored.common.members, ['0_userdata.0.lamp', '0_userdata.0.hidden'], 'and keeps the hidden one stored');
});

t.test("a name never reveals the id of an object the caller may not read", async t => {
    let res = await app.request(`/v1/state/${encodeURIComponent('Secret Heater')}`, { headers: VIEWER });
    t.equal(res.status, 404);
    t.notMatch(JSON.stringify(res.json), /0_userdata\.0\.hidden/, 'the id stays unsaid');
    res = await app.request(`/v1/state/${encodeURIComponent('Secret Heater')}/plain`, { headers: VIEWER });
    t.notMatch(res.text, /0_userdata\.0\.hidden/);
    res = await app.request(`/v1/state/${encodeURIComponent('Kitchen Lamp')}`, { headers: VIEWER });
    t.equal(res.json.val, 1, 'a readable one still resolves by name');
});
