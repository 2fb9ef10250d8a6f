/*
 * A limited user against the real history adapter (iobroker.history 5.0.1), auth on: history recorded
 * for a state the user may not read stays out of reach however history maps ids to series (an aliasId
 * in the custom settings, a file name shared by several ids), and a storeState message has a bound.
 */
import t from 'tap';
import { startIobroker, type IobFixture } from './support/iobroker';
import { ADMIN, BEE, DAY, dayQuery, historyCallers } from './support/history-callers';
import { startHistory, type RealHistory } from './support/real-history';

const P = '0_userdata.0.ha';
/** A state only the administrator reads and writes, with recorded values. */
const PRIVATE = `${P}.private`;
/** The user's own state whose history settings name PRIVATE as aliasId (made before such writes were refused). */
const ALIASED = `${P}.aliased`;
/** The user's own states. */
const OWN = `${P}.own`;
const MINE = `${P}.mine`;
/** A private state, and the user's own one whose file name history makes alike. */
const DOOR = `${P}.door|code`;
const DOOR_TWIN = `${P}.door~code`;
const SECRET = 4242;
const DOOR_VALUES = Array.from({ length: 1000 }, (_, i) => SECRET + i);
const PRIVATE_ACL = {
    owner: 'system.user.admin',
    ownerGroup: 'system.group.administrator',
    object: 0x600,
    state: 0x600,
};

let iob: IobFixture;
let history: RealHistory;

const { get, send, sendTo } = historyCallers(() => iob);

async function store(id: string, vals: number[]): Promise<void> {
    const res = await sendTo(
        'storeState',
        {
            id,
            state: vals.map((val, i) => ({
                val,
                ts: DAY + i * 60_000,
                ack: true,
                from: 'system.adapter.test.0',
                q: 0,
            })),
        },
        ADMIN,
    );
    if (res.status !== 200) {
        throw new Error(`storeState ${id}: ${res.status} ${res.text}`);
    }
}

async function privateValues(id = PRIVATE): Promise<unknown[]> {
    const res = await get(`/v1/getHistory/${encodeURIComponent(id)}?${dayQuery}&aggregate=none`, ADMIN);
    return (res.json as Array<{ val: unknown }>).map(v => v.val);
}

async function makeState(id: string, acl?: typeof PRIVATE_ACL, custom?: Record<string, unknown>): Promise<void> {
    await iob.createState(id, { type: 'number', ...(custom ? { custom } : {}) }, 0);
    if (acl) {
        const obj = await iob.storage.objects.getObjectAsync(id);
        await iob.storage.objects.setObjectAsync(id, { ...obj!, acl });
    }
}

t.before(async () => {
    iob = await startIobroker({ native: { auth: true, dataSource: 'history.0' } });
    const all = { read: true, write: true, list: true, create: true, delete: true };
    await iob.createUser('bee', { state: all, object: all, other: { sendto: true } }, 'b');
    await makeState(PRIVATE, PRIVATE_ACL);
    await makeState(DOOR, PRIVATE_ACL);
    await makeState(OWN);
    await makeState(MINE);
    history = await startHistory(iob.storage);
    await store(PRIVATE, [SECRET, SECRET + 1]);
    // more than history keeps in memory (960): it writes them to the day's file, the one both ids name
    await store(DOOR, DOOR_VALUES);
    // made straight in the storage: such a write through the API is refused now (tested below)
    await makeState(ALIASED, undefined, { 'history.0': { enabled: true, aliasId: PRIVATE } });
    // history maps ALIASED to PRIVATE once it has seen the object
    for (let i = 0; ; i++) {
        const res = await get(`/v1/getHistory/${ALIASED}?${dayQuery}&aggregate=none`, ADMIN);
        if (res.status === 200 && (res.json as unknown[]).length) {
            break;
        }
        if (i > 100) {
            throw new Error(`history.0 did not map ${ALIASED} to ${PRIVATE}: ${res.status} ${res.text}`);
        }
        await new Promise(r => setTimeout(r, 100));
    }
    const twin = await send('POST', `/v1/object/${encodeURIComponent(DOOR_TWIN)}`, {
        type: 'state',
        common: { name: 'twin', type: 'number', role: 'state', read: true, write: true },
        native: {},
    });
    if (twin.status !== 200) {
        throw new Error(`the user could not make ${DOOR_TWIN}: ${twin.status} ${twin.text}`);
    }
});
t.teardown(async () => {
    await history?.stop();
    await iob?.stop();
});

t.test('the private state itself is refused to the user, and its history is recorded', async t => {
    t.equal((await get(`/v1/getHistory/${PRIVATE}?${dayQuery}`)).status, 403);
    t.same(await privateValues(), [SECRET, SECRET + 1]);
});

t.test('an own id whose aliasId names a private state: every read path refuses its history', async t => {
    const answers = {
        series: await get(`/v1/history?ids=${ALIASED}&${dayQuery}`),
        single: await get(`/v1/getHistory/${ALIASED}?${dayQuery}&aggregate=none`),
        singlePost: await send('POST', '/v1/getHistory', { id: ALIASED, options: { start: DAY, aggregate: 'none' } }),
        command: await send('POST', '/v1/command/getHistory', {
            id: ALIASED,
            options: { instance: 'history.0', start: DAY, aggregate: 'none' },
        }),
        sendTo: await sendTo('getHistory', {
            id: ALIASED,
            options: { start: DAY, end: DAY + 86_400_000, aggregate: 'none' },
        }),
        sendToCommand: await send('POST', '/v1/command/sendTo', {
            adapterInstance: 'history.0',
            command: 'getHistory',
            message: { id: ALIASED, options: { start: DAY, aggregate: 'none' } },
        }),
    };
    for (const [path, res] of Object.entries(answers)) {
        t.equal(res.status, 403, `${path}: ${res.text.slice(0, 200)}`);
        t.notMatch(res.text, String(SECRET), `${path} shows no private value`);
    }
});

t.test('an own id whose aliasId names a private state: no change reaches the private series', async t => {
    const answers = {
        deleteAll: await sendTo('deleteAll', { id: ALIASED }),
        deleteRange: await sendTo('deleteRange', { id: ALIASED, state: [{ start: DAY, end: DAY + 86_400_000 }] }),
        delete: await sendTo('delete', { id: ALIASED, state: { ts: DAY } }),
        update: await sendTo('update', { id: ALIASED, state: { ts: DAY, val: 1 } }),
        storeState: await sendTo('storeState', { id: ALIASED, state: { ts: DAY + 5, val: 1 } }),
        addHistory: await send('POST', '/v1/addHistory', { id: ALIASED, state: { val: 1, ts: DAY + 6 } }),
        // history appends every value of the state to the series of its aliasId
        stateWrite: await send('PATCH', `/v1/state/${ALIASED}`, { val: 7, ack: true, ts: DAY + 8 }),
    };
    for (const [path, res] of Object.entries(answers)) {
        t.equal(res.status, 403, `${path}: ${res.text.slice(0, 200)}`);
    }
    t.same(await privateValues(), [SECRET, SECRET + 1], 'the private history is as it was');
});

t.test('setting an aliasId to a state the user may not read and write is refused on every object write', async t => {
    const custom = { 'history.0': { enabled: true, aliasId: PRIVATE } };
    const object = {
        type: 'state',
        common: { name: 'x', type: 'number', role: 'state', read: true, write: true, custom },
        native: {},
    };
    const answers = {
        create: await send('POST', `/v1/object/${P}.new1`, object),
        put: await send('PUT', `/v1/object/${OWN}`, { common: { custom } }),
        setObject: await send('POST', '/v1/command/setObject', { id: `${P}.new2`, obj: object }),
        extendObject: await send('POST', '/v1/command/extendObject', { id: OWN, obj: { common: { custom } } }),
        otherInstance: await send('PUT', `/v1/object/${OWN}`, {
            common: { custom: { 'sql.0': { enabled: true, aliasId: PRIVATE } } },
        }),
        enableHistory: await sendTo('enableHistory', { id: OWN, options: { aliasId: PRIVATE } }),
    };
    for (const [path, res] of Object.entries(answers)) {
        t.equal(res.status, 403, `${path}: ${res.text.slice(0, 200)}`);
    }
    const own = await iob.storage.objects.getObjectAsync(OWN);
    t.notOk(own?.common.custom, 'the own object has no history settings');
    t.notOk(await iob.storage.objects.getObjectAsync(`${P}.new1`), 'nothing created');

    const allowed = await send('PUT', `/v1/object/${OWN}`, {
        common: { custom: { 'history.0': { enabled: true, aliasId: MINE } } },
    });
    t.equal(allowed.status, 200, `an aliasId to an own state is fine: ${allowed.text}`);
});

t.test('the user lists no recorded ids and reads no series without naming it', async t => {
    const listing = await sendTo('getEnabledDPs', {});
    t.equal(listing.status, 403, listing.text);
    t.notMatch(listing.text, PRIVATE);
    const unnamed = await sendTo('getHistory', { options: { start: DAY, aggregate: 'none' } });
    t.equal(unnamed.status, 422, unnamed.text);
});

t.test('ids sharing a file name: the user gets the series only when it may read every one of them', async t => {
    t.ok((await privateValues(DOOR_TWIN)).includes(SECRET), 'history reads one file for both ids');
    const answers = {
        series: await get(`/v1/history?ids=${encodeURIComponent(DOOR_TWIN)}&${dayQuery}`),
        single: await get(`/v1/getHistory/${encodeURIComponent(DOOR_TWIN)}?${dayQuery}&aggregate=none`),
        sendTo: await sendTo('getHistory', {
            id: DOOR_TWIN,
            options: { start: DAY, end: DAY + 86_400_000, aggregate: 'none' },
        }),
        deleteAll: await sendTo('deleteAll', { id: DOOR_TWIN }),
        storeState: await sendTo('storeState', { id: DOOR_TWIN, state: { ts: DAY + 7, val: 1 } }),
        enable: await send('PUT', `/v1/object/${encodeURIComponent(DOOR_TWIN)}`, {
            common: { custom: { 'history.0': { enabled: true } } },
        }),
    };
    for (const [path, res] of Object.entries(answers)) {
        t.equal(res.status, 403, `${path}: ${res.text.slice(0, 200)}`);
        t.notMatch(res.text, String(SECRET), `${path} shows no private value`);
    }
    // history takes a list as one id, its text: `….door,code` names the same file as DOOR
    const list = await sendTo('deleteAll', { id: [`${P}.door`, 'code'] });
    t.equal(list.status, 403, `a list as id: ${list.text}`);
    t.same(await privateValues(DOOR), DOOR_VALUES, 'the private history is as it was');
    const mine = await get(`/v1/getHistory/${MINE}?${dayQuery}`);
    t.equal(mine.status, 200, `an id that shares no file name is read as before: ${mine.text}`);
});

t.test('storeState takes at most 1,000 values per message', async t => {
    const values = (n: number): unknown[] =>
        Array.from({ length: n }, (_, i) => ({ val: i, ts: DAY + i * 1000, ack: true }));
    const tooMany = await sendTo('storeState', { id: MINE, state: values(1001) }, ADMIN);
    t.equal(tooMany.status, 422, tooMany.text);
    t.match(tooMany.json?.error, /at most 1000 values/);
    const list = await sendTo(
        'storeState',
        values(1001).map(state => ({ id: MINE, state })),
        ADMIN,
    );
    t.equal(list.status, 422, `the list form too: ${list.text}`);
    const ok = await sendTo('storeState', { id: MINE, state: values(1000) }, BEE);
    t.equal(ok.status, 200, ok.text);
});

t.test("a private state's aliasId names the user's own state: the user neither appends to that series nor reads it through an aliasId of its own", async t => {
    const target = `${P}.target`;
    const via = `${P}.via`;
    const filer = `${P}.filer`;
    // no history settings of its own: history records its values all the same, under the series it keeps
    // for the private state's aliasId
    await makeState(target);
    await makeState(via, undefined, { 'history.0': { enabled: true, aliasId: target } });
    // history files the private state's values under the user's own id
    await makeState(filer, PRIVATE_ACL, { 'history.0': { enabled: true, aliasId: target } });
    const write = await send('PATCH', `/v1/state/${target}`, { val: 9, ack: true });
    t.equal(write.status, 403, `a value of the own state would join the private series: ${write.text}`);
    const read = await get(`/v1/getHistory/${via}?${dayQuery}&aggregate=none`);
    t.equal(read.status, 403, `the own aliasId reads the series the private state files into: ${read.text}`);
    // deleted beside the adapter: its settings are read again once the change is announced
    await iob.storage.objects.delObjectAsync(filer);
    let writeAfter = await send('PATCH', `/v1/state/${target}`, { val: 10, ack: true });
    for (let i = 0; writeAfter.status === 403 && i < 20; i++) {
        await new Promise(r => setTimeout(r, 100));
        writeAfter = await send('PATCH', `/v1/state/${target}`, { val: 10, ack: true });
    }
    t.equal(writeAfter.status, 200, `without the private state both pass: ${writeAfter.text}`);
    t.equal((await get(`/v1/getHistory/${via}?${dayQuery}&aggregate=none`)).status, 200);
});
