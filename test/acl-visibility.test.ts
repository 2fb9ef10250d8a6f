/*
 * A limited user sees only what it may read. Against real storage with auth on: a few hundred states
 * and objects under ten ACL kinds (owner, owner group, everyone; state and object bits differing),
 * two limited users in different groups, onlyAllowWhenUserIsOwner off and on. The oracle is the single
 * read of each id as that user (GET /v1/state/<id>, GET /v1/object/<id>); every listing, command and
 * event channel with a pattern must answer or deliver exactly the ids the oracle allows.
 */
import t, { type Test } from 'tap';
import { fakeInstance, type FakeInstance } from './support/fake-instance';
import { startHookReceiver, type HookReceiver } from './support/hook-receiver';
import { createUser } from './support/iobroker';
import { startInProcess, type InProcessApp, type InProcessHost } from './support/in-process';
import { openSse } from './support/sse-client';

const PREFIX = '0_userdata.0.acl';
const PATTERN = `${PREFIX}.*`;
const PER_KIND = 20;
const ADMIN = 'system.user.admin';
const ADMINS = 'system.group.administrator';
const USERS = ['ann', 'bob'] as const;
type User = (typeof USERS)[number];

type Acl = { owner: string; ownerGroup: string; object: number; state?: number } | undefined;
/** Ten kinds of ACL; `ann_group`/`bob_group` are the users' own groups. */
const KINDS: Record<string, Acl> = {
    open: { owner: ADMIN, ownerGroup: ADMINS, object: 0x664, state: 0x664 },
    statePrivate: { owner: ADMIN, ownerGroup: ADMINS, object: 0x664, state: 0x600 },
    objectHidden: { owner: ADMIN, ownerGroup: ADMINS, object: 0x600, state: 0x664 },
    annOwns: { owner: 'system.user.ann', ownerGroup: ADMINS, object: 0x644, state: 0x600 },
    annGroup: { owner: ADMIN, ownerGroup: 'system.group.ann_group', object: 0x660, state: 0x660 },
    bobGroup: { owner: ADMIN, ownerGroup: 'system.group.bob_group', object: 0x660, state: 0x660 },
    objectBitsOnly: { owner: ADMIN, ownerGroup: ADMINS, object: 0x644 },
    noAcl: undefined,
    bobOwnsOpen: { owner: 'system.user.bob', ownerGroup: 'system.group.bob_group', object: 0x644, state: 0x644 },
    annOwnsPrivate: { owner: 'system.user.ann', ownerGroup: 'system.group.ann_group', object: 0x600, state: 0x600 },
};

let host: InProcessHost;
let app: InProcessApp;
/** A fresh app with this config, as a restart of the adapter gave. */
async function configure(native: Record<string, unknown> = {}): Promise<void> {
    await app?.close();
    app = await host.app({ auth: true, checkInterval: 0, ...native });
}
let hooks: HookReceiver;
let history: FakeInstance;
const ids: string[] = [];
const channels: string[] = [];

const auth = (user: User | 'admin'): Record<string, string> => ({
    Authorization: `Basic ${Buffer.from(`${user}:${user === 'admin' ? 'iobroker' : 'secret'}`).toString('base64')}`,
});
const as = (user: User | 'admin', path: string, options: { method?: string; body?: unknown } = {}) => app.request(path, { ...options, headers: auth(user) });
const sorted = (list: Iterable<string>) => [...list].sort();
const MARKERS: Record<User, string> = { ann: `${PREFIX}.annOwns.s00`, bob: `${PREFIX}.bobOwnsOpen.s00` };

async function writeObject(id: string, type: string, acl: Acl): Promise<void> {
    const common = type === 'state' ? { name: id, type: 'number', role: 'value', read: true, write: true } : { name: id };
    await host.storage.objects.setObjectAsync(id, { _id: id, type, common, native: {}, ...(acl ? { acl } : {}) });
}

t.before(async () => {
    hooks = await startHookReceiver();
    host = await startInProcess();
    const rights = { object: { read: true, list: true }, state: { read: true, list: true }, file: { read: true, list: true }, other: { sendto: true } };
    for (const user of USERS) {
        await createUser(host.storage, user, rights);
    }
    for (const [kind, acl] of Object.entries(KINDS)) {
        for (let i = 0; i < PER_KIND; i++) {
            const id = `${PREFIX}.${kind}.s${String(i).padStart(2, '0')}`;
            await writeObject(id, 'state', acl);
            await host.storage.states.setStateAsync(id, { val: i, ack: true, from: 'system.adapter.test.0' });
            ids.push(id);
        }
        channels.push(`${PREFIX}.${kind}`);
        await writeObject(`${PREFIX}.${kind}`, 'channel', acl);
    }
    // an enum naming readable and unreadable members, and one the users may not read at all
    await host.storage.objects.setObjectAsync('enum.rooms.acltest', { _id: 'enum.rooms.acltest', type: 'enum', common: { name: 'acl test', members: [...ids] }, native: {} });
    await host.storage.objects.setObjectAsync('enum.rooms.hidden', {
        _id: 'enum.rooms.hidden',
        type: 'enum',
        common: { name: 'hidden', members: [ids[0]] },
        native: {},
        acl: { owner: ADMIN, ownerGroup: ADMINS, object: 0x600 },
    });
    // meta objects with files: one the users may read, one hidden
    for (const [meta, object] of [
        ['openfiles.0', 0x664],
        ['hiddenfiles.0', 0x600],
    ] as const) {
        await host.storage.objects.setObjectAsync(meta, { _id: meta, type: 'meta', common: { name: meta, type: 'meta.user' }, native: {}, acl: { owner: ADMIN, ownerGroup: ADMINS, object } });
        await host.storage.objects.writeFileAsync(meta, 'a.txt', 'x');
    }
    // a hidden instance object, and a history instance that answers every message with an empty list
    await writeObject('system.adapter.secret.0', 'instance', { owner: ADMIN, ownerGroup: ADMINS, object: 0x600 });
    history = await fakeInstance({ storage: host.storage } as never, 'history.0', () => ({ result: [], step: 0 }));
    const instance = await host.storage.objects.getObjectAsync('system.adapter.history.0');
    await host.storage.objects.setObjectAsync('system.adapter.history.0', { ...instance, common: { ...instance.common, getHistory: true, type: 'storage' } });
    await configure();
});
t.teardown(async () => {
    await history?.close();
    await app?.close();
    await host?.stop();
    hooks?.close();
});

/** The oracle: the ids whose single read answers 200 for this user. */
async function readable(user: User, kind: 'state' | 'object', list: string[]): Promise<string[]> {
    const allowed: string[] = [];
    for (const id of list) {
        const res = await as(user, `/v1/${kind}/${id}`);
        if (res.status === 200) {
            allowed.push(id);
        } else if (res.status !== 403 && res.status !== 404) {
            throw new Error(`single read of ${id} as ${user}: ${res.status} ${res.text}`);
        }
    }
    return allowed;
}

const commandResult = async (user: User | 'admin', name: string, params: Record<string, unknown>) => {
    const res = await as(user, `/v1/command/${name}`, { method: 'POST', body: params });
    return { status: res.status, result: res.json?.result, json: res.json };
};
const ours = (keys: string[]) => keys.filter(id => id.startsWith(`${PREFIX}.`));

async function checkListings(t: Test, user: User): Promise<void> {
    const states = await readable(user, 'state', ids);
    const objects = await readable(user, 'object', [...ids, ...channels]);
    const stateObjects = objects.filter(id => ids.includes(id));
    t.ok(states.length > 0 && states.length < ids.length, `${user} may read some states, not all (${states.length} of ${ids.length})`);

    let res = await as(user, `/v1/states?filter=${PATTERN}`);
    t.same(sorted(Object.keys(res.json)), sorted(states), `${user}: GET /v1/states`);
    for (const name of ['getStates', 'getForeignStates']) {
        const answer = await commandResult(user, name, { pattern: PATTERN });
        t.same(sorted(Object.keys(answer.result)), sorted(states), `${user}: ${name} with a pattern`);
    }
    let answer = await commandResult(user, 'getStates', { pattern: states.slice(0, 5) });
    t.same(sorted(Object.keys(answer.result)), sorted(states.slice(0, 5)), `${user}: getStates with a list of readable ids`);
    const forbidden = ids.find(id => !states.includes(id))!;
    answer = await commandResult(user, 'getStates', { pattern: [states[0], forbidden] });
    t.equal(answer.status, 403, `${user}: getStates with a mixed list is refused whole`);

    // comma lists: readable ids answer, several at once never 500; a mixed list is refused with 403
    const comma = await Promise.all(Array.from({ length: 5 }, () => as(user, `/v1/state/${states.slice(0, 4).join(',')}`)));
    t.same(
        comma.map(r => r.status),
        [200, 200, 200, 200, 200],
        `${user}: comma list of readable ids`,
    );
    res = await as(user, `/v1/state/${states[0]},${forbidden}`);
    t.equal(res.status, 403, `${user}: a mixed comma list is refused`);

    res = await as(user, `/v1/objects?filter=${PATTERN}&type=state`);
    t.same(sorted(Object.keys(res.json)), sorted(stateObjects), `${user}: GET /v1/objects type=state`);
    res = await as(user, `/v1/objects?filter=${PATTERN}`);
    t.same(sorted(Object.keys(res.json)), sorted(stateObjects), `${user}: GET /v1/objects without type`);
    res = await as(user, `/v1/objects?filter=${PATTERN}&type=channel`);
    t.same(sorted(Object.keys(res.json)), sorted(objects.filter(id => channels.includes(id))), `${user}: GET /v1/objects type=channel`);
    // a pattern without a type lists state objects, as js-controller's getForeignObjects does
    answer = await commandResult(user, 'getObjects', { list: PATTERN });
    t.same(sorted(ours(Object.keys(answer.result))), sorted(stateObjects), `${user}: getObjects with a pattern`);
    answer = await commandResult(user, 'getObjects', { list: ids });
    t.same(sorted(Object.keys(answer.result)), sorted(stateObjects), `${user}: getObjects with a list`);
    answer = await commandResult(user, 'getForeignObjects', { pattern: PATTERN });
    t.same(sorted(ours(Object.keys(answer.result))), sorted(stateObjects), `${user}: getForeignObjects`);
    answer = await commandResult(user, 'getForeignObjects', { pattern: PATTERN, type: 'channel' });
    t.same(sorted(ours(Object.keys(answer.result))), sorted(objects.filter(id => channels.includes(id))), `${user}: getForeignObjects of a type`);
    answer = await commandResult(user, 'getAllObjects', {});
    t.same(sorted(ours(Object.keys(answer.result))), sorted(objects), `${user}: getAllObjects`);
    answer = await commandResult(user, 'getObjectView', { design: 'system', search: 'state', params: { startkey: `${PREFIX}.`, endkey: `${PREFIX}.\u9999` } });
    t.same(sorted(answer.result.rows.map((r: { id: string }) => r.id)), sorted(stateObjects), `${user}: getObjectView`);
    answer = await commandResult(user, 'getCompactInstances', {});
    t.notOk('system.adapter.secret.0' in answer.result, `${user}: getCompactInstances leaves out a hidden instance`);
    t.ok('system.adapter.history.0' in answer.result, `${user}: and lists a readable one`);
    answer = await commandResult(user, 'readDir', { adapter: '', dirName: '' });
    const metas = (answer.result as Array<{ file: string }>).map(e => e.file);
    t.ok(metas.includes('openfiles.0') && !metas.includes('hiddenfiles.0'), `${user}: the file root lists only readable meta objects (${metas.join(', ')})`);
    answer = await commandResult(user, 'getAdapterInstances', {});
    t.notOk(
        answer.result.some((o: { _id: string }) => o._id === 'system.adapter.secret.0'),
        `${user}: getAdapterInstances leaves out a hidden instance`,
    );

    // enums: the hidden enum is not listed, members only name readable objects
    res = await as(user, '/v1/enum');
    t.notOk(res.json['enum.rooms']?.['enum.rooms.hidden'], `${user}: /v1/enum leaves out a hidden enum`);
    t.same(sorted(res.json['enum.rooms']['enum.rooms.acltest'].common.members), sorted(stateObjects), `${user}: /v1/enum members`);
    res = await as(user, '/v1/enum/rooms');
    t.notOk(res.json.some((e: { _id: string }) => e._id === 'enum.rooms.hidden'), `${user}: /v1/enum/rooms leaves out a hidden enum`);
    const room = res.json.find((e: { _id: string }) => e._id === 'enum.rooms.acltest');
    t.same(sorted(room.common.members), sorted(stateObjects), `${user}: /v1/enum/rooms members`);

    // single subscriptions answer the object or state: the same rule as a single read
    const hiddenObject = ids.find(id => !objects.includes(id))!;
    await as(user, `/v1/polling?sid=single-${user}&connect&timeout=100`);
    let single = await as(user, `/v1/object/${hiddenObject}/subscribe?sid=single-${user}`, { method: 'POST', body: { method: 'polling' } });
    t.equal(single.status, 403, `${user}: subscribing to an object it may not read is refused`);
    t.notOk(single.text.includes('"common"'), 'and answers no object');
    single = await as(user, `/v1/state/${forbidden}/subscribe?sid=single-${user}`, { method: 'POST', body: { method: 'polling' } });
    t.equal(single.status, 403, `${user}: subscribing to a state it may not read is refused`);
    single = await as(user, `/v1/state/${states[0]}/subscribe?sid=single-${user}`, { method: 'POST', body: { method: 'polling' } });
    t.equal(single.status, 200, `${user}: a readable state can be subscribed`);
    await as(user, `/v1/state/${states[0]}/subscribe?sid=single-${user}`, { method: 'DELETE', body: { method: 'polling' } });

    // history: refused for what the user may not read, through every door
    const readableId = states[0];
    for (const [id, allowed] of [
        [readableId, true],
        [forbidden, false],
    ] as const) {
        const routes = [
            await as(user, `/v1/getHistory/${id}?instance=history.0`),
            await as(user, '/v1/command/getHistory', { method: 'POST', body: { id, options: { instance: 'history.0' } } }),
            await as(user, '/v1/command/sendTo', { method: 'POST', body: { adapterInstance: 'history.0', command: 'getHistory', message: { id }, timeout: 2000 } }),
            await as(user, '/v1/sendto/history.0', { method: 'POST', body: { message: 'getHistory', data: { id } } }),
            await as(user, '/v1/command/sendTo', { method: 'POST', body: { adapterInstance: 'history.0', command: 'storeState', message: [{ id, state: { val: 1 } }], timeout: 2000 } }),
        ];
        // storeState changes the history: these users may read but not write any state
        t.same(
            routes.map(r => r.status === 403),
            [!allowed, !allowed, !allowed, !allowed, true],
            `${user}: history of ${allowed ? 'a readable' : 'a forbidden'} state (${routes.map(r => r.status).join(', ')})`,
        );
    }
}

/** Writes every state once and collects what each user's polling session, hook and event stream got. */
async function checkEvents(t: Test, round: number): Promise<void> {
    const expected = new Map<User, string[]>();
    const sessions = new Map<User, string>();
    const streams = new Map<User, Awaited<ReturnType<typeof openSse>>>();
    hooks.received = [];
    for (const user of USERS) {
        expected.set(user, await readable(user, 'state', ids));
        const sid = `${user}-${round}`;
        sessions.set(user, sid);
        await as(user, `/v1/polling?sid=${sid}&connect&timeout=100`);
        let res = await as(user, `/v1/states/subscribe?sid=${sid}`, { method: 'POST', body: { method: 'polling', pattern: PATTERN } });
        t.equal(res.status, 200, `${user}: polling subscription`);
        res = await as(user, '/v1/states/subscribe', { method: 'POST', body: { url: `${hooks.url}/${user}-${round}`, pattern: PATTERN } });
        t.equal(res.status, 200, `${user}: hook`);
        const sse = await openSse(`${await app.serve()}/v1/events?pattern=${PATTERN}`, auth(user));
        t.equal(sse.status, 200, `${user}: event stream`);
        streams.set(user, sse);
    }
    const written = round * 1000;
    for (const id of ids) {
        await host.storage.states.setStateAsync(id, { val: written, ack: true, from: 'system.adapter.test.0' });
    }
    // a marker each user owns (readable in both modes) ends that user's collection
    await new Promise(r => setTimeout(r, 200));
    for (const marker of Object.values(MARKERS)) {
        await host.storage.states.setStateAsync(marker, { val: written + 1, ack: true, from: 'system.adapter.test.0' });
    }

    for (const user of USERS) {
        const want = sorted(new Set(expected.get(user)));
        // polling
        const polled = new Set<string>();
        for (let i = 0; i < 200; i++) {
            const res = await as(user, `/v1/polling?sid=${sessions.get(user)}&batch=true&timeout=500`);
            const body = res.text ? JSON.parse(res.text) : [];
            const batch: Array<{ id: string; state: { val: number } }> = Array.isArray(body) ? body : [body];
            batch.filter(e => e.state?.val === written).forEach(e => polled.add(e.id));
            if (batch.some(e => e.state?.val === written + 1)) {
                break;
            }
        }
        t.same(sorted(polled), want, `${user}: long polling delivers exactly the readable ids`);
        // event stream
        const sse = streams.get(user)!;
        const streamed = new Set<string>();
        for (;;) {
            const event = JSON.parse((await sse.nextEvent(5000)).data ?? '{}');
            if (event.state?.val === written + 1) {
                break;
            }
            if (event.state?.val === written) {
                streamed.add(event.id);
            }
        }
        sse.close();
        t.same(sorted(streamed), want, `${user}: the event stream delivers exactly the readable ids`);
        // hook
        const path = `/hook/${user}-${round}`;
        const end = Date.now() + 10_000;
        const delivered = () => hooks.received.filter(d => d.url === path).map(d => JSON.parse(d.body));
        while (!delivered().some(e => e.state?.val === written + 1) && Date.now() < end) {
            await new Promise(r => setTimeout(r, 50));
        }
        const hooked = new Set(delivered().filter(e => e.state?.val === written).map(e => e.id as string));
        t.same(sorted(hooked), want, `${user}: the URL hook delivers exactly the readable ids`);
        await as(user, '/v1/states/subscribe', { method: 'DELETE', body: { url: `${hooks.url}/${user}-${round}` } });
    }
}

for (const ownerOnly of [false, true]) {
    t.test(`onlyAllowWhenUserIsOwner ${ownerOnly ? 'on' : 'off'}`, async t => {
        if (ownerOnly) {
            await configure({ onlyAllowWhenUserIsOwner: true });
        }
        for (const user of USERS) {
            await checkListings(t, user);
        }
        await checkEvents(t, ownerOnly ? 2 : 1);
    });
}

t.test('an ACL change applies to the next listing and the next event', async t => {
    await configure({ onlyAllowWhenUserIsOwner: false });
    const id = `${PREFIX}.open.s05`;
    let res = await as('ann', `/v1/states?filter=${PATTERN}`);
    t.ok(id in res.json, 'listed while open');
    await as('ann', '/v1/polling?sid=change&connect&timeout=100');
    await as('ann', '/v1/states/subscribe?sid=change', { method: 'POST', body: { method: 'polling', pattern: PATTERN } });
    await writeObject(id, 'state', { owner: ADMIN, ownerGroup: ADMINS, object: 0x664, state: 0x600 });
    // the adapter learns of the object change through its notification
    const end = Date.now() + 5000;
    while ((await as('ann', `/v1/state/${id}`)).status !== 403 && Date.now() < end) {
        await new Promise(r => setTimeout(r, 50));
    }
    res = await as('ann', `/v1/states?filter=${PATTERN}`);
    t.notOk(id in res.json, 'the next listing leaves it out');
    await host.storage.states.setStateAsync(id, { val: 55, ack: true, from: 'system.adapter.test.0' });
    await host.storage.states.setStateAsync(`${PREFIX}.open.s06`, { val: 56, ack: true, from: 'system.adapter.test.0' });
    const got: string[] = [];
    for (let i = 0; i < 20 && !got.includes(`${PREFIX}.open.s06`); i++) {
        const poll = await as('ann', '/v1/polling?sid=change&batch=true&timeout=500');
        got.push(...(poll.text ? JSON.parse(poll.text) : []).map((e: { id: string }) => e.id));
    }
    t.ok(got.includes(`${PREFIX}.open.s06`), 'a readable change still arrives');
    t.notOk(got.includes(id), 'the next event of the closed state does not');
});

t.test('the administrator still sees everything', async t => {
    const res = await as('admin', `/v1/states?filter=${PATTERN}`);
    t.equal(Object.keys(res.json).length, ids.length);
    const objects = await commandResult('admin', 'getObjects', { list: PATTERN });
    t.equal(ours(Object.keys(objects.result)).length, ids.length);
});
