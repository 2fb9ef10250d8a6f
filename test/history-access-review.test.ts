/*
 * Ways an attacker's read of issue 52 found for a limited user to reach another user's history
 * series against the real history adapter 5.0.1. Each assertion states the SAFE behaviour; a failing
 * assertion is a finding.
 */
import t from 'tap';
import { startIobroker, type HttpAnswer, type IobFixture } from './support/iobroker';
import { ADMIN, DAY, dayQuery, historyCallers } from './support/history-callers';
import { startHistory, type RealHistory } from './support/real-history';

const P = '0_userdata.0.rx';
const PRIVATE = `${P}.private`;
const PRIVATE2 = `${P}.private2`;
const WONLY = `${P}.writeonly`;
const OWN = `${P}.own`;
const OWN2 = `${P}.own2`;
const DOOR = `${P}.door|code`;
const DOOR_TWIN = `${P}.door~code`;
const GONE = `${P}.gone`;
/** The user may switch it (read and write the state) but not edit its object. */
const SWITCH = `${P}.switch`;
const SWITCH_ACL = {
    owner: 'system.user.admin',
    ownerGroup: 'system.group.administrator',
    object: 0x644,
    state: 0x666,
};
const SECRET = 4242;
const PRIVATE_ACL = {
    owner: 'system.user.admin',
    ownerGroup: 'system.group.administrator',
    object: 0x644,
    state: 0x600,
};
/** Everyone may write the state, not read it. */
const WRITE_ONLY_ACL = {
    owner: 'system.user.admin',
    ownerGroup: 'system.group.administrator',
    object: 0x644,
    state: 0x602,
};

let iob: IobFixture;
let history: RealHistory;

const { get, send, sendTo } = historyCallers(() => iob);
const sleep = (ms: number): Promise<void> => new Promise(r => setTimeout(r, ms));

async function store(id: string, vals: number[]): Promise<void> {
    const state = vals.map((val, i) => ({ val, ts: DAY + i * 60_000, ack: true, from: 'system.adapter.test.0', q: 0 }));
    const res = await sendTo('storeState', { id, state }, ADMIN);
    if (res.status !== 200) {
        throw new Error(`storeState ${id}: ${res.status} ${res.text}`);
    }
}

async function values(id: string): Promise<unknown[]> {
    const res = await get(`/v1/getHistory/${encodeURIComponent(id)}?${dayQuery}&aggregate=none`, ADMIN);
    return ((res.json as Array<{ val: unknown }>) ?? []).map(v => v.val);
}

async function makeState(id: string, acl?: object, custom?: Record<string, unknown>): Promise<void> {
    await iob.createState(id, { type: 'number', ...(custom ? { custom } : {}) }, 0);
    if (acl) {
        const obj = await iob.storage.objects.getObjectAsync(id);
        await iob.storage.objects.setObjectAsync(id, { ...obj!, acl } as never);
    }
}

t.before(async () => {
    iob = await startIobroker({ native: { auth: true, dataSource: 'history.0' } });
    const all = { read: true, write: true, list: true, create: true, delete: true };
    await iob.createUser('bee', { state: all, object: all, other: { sendto: true } }, 'b');
    await makeState(PRIVATE, PRIVATE_ACL);
    await makeState(PRIVATE2, PRIVATE_ACL);
    await makeState(WONLY, WRITE_ONLY_ACL);
    await makeState(DOOR, PRIVATE_ACL, { 'history.0': { enabled: true } });
    await makeState(OWN);
    await makeState(OWN2);
    await makeState(GONE, PRIVATE_ACL);
    await makeState(SWITCH, SWITCH_ACL, { 'history.0': { enabled: true, maxLength: 960, retention: 31536000 } });
    history = await startHistory(iob.storage);
    await store(PRIVATE, [SECRET, SECRET + 1]);
    await store(PRIVATE2, [SECRET, SECRET + 1]);
    await store(WONLY, [SECRET, SECRET + 1]);
    await store(GONE, [SECRET, SECRET + 1]);
});
t.teardown(async () => {
    await history?.stop();
    await iob?.stop();
});

t.test('aliasId given as a one-element list (history takes its text as the id)', async t => {
    const put = await send('PUT', `/v1/object/${OWN}`, {
        common: { custom: { 'history.0': { enabled: true, aliasId: [PRIVATE] } } },
    });
    t.equal(put.status, 403, `setting aliasId [PRIVATE] is refused: ${put.text.slice(0, 200)}`);
    // give history time to see the object
    let read: HttpAnswer | undefined;
    for (let i = 0; i < 30; i++) {
        read = await get(`/v1/getHistory/${OWN}?${dayQuery}&aggregate=none`);
        if (read.status !== 200 || read.text.includes(String(SECRET))) {
            break;
        }
        await sleep(100);
    }
    t.notMatch(
        read!.text,
        String(SECRET),
        `reading the own id shows no private value: ${read!.status} ${read!.text.slice(0, 200)}`,
    );
    const series = await get(`/v1/history?ids=${OWN}&${dayQuery}`);
    t.notMatch(series.text, String(SECRET), `series route: ${series.status} ${series.text.slice(0, 200)}`);
});

t.test('aliasId list: changes reach the private series', async t => {
    const put = await send('PUT', `/v1/object/${OWN2}`, {
        common: { custom: { 'history.0': { enabled: true, aliasId: [PRIVATE2] } } },
    });
    t.equal(put.status, 403, `setting aliasId [PRIVATE2] is refused: ${put.text.slice(0, 200)}`);
    // as an administrator (or a version before this check) may have left it: reads and changes still count it
    const obj = await iob.storage.objects.getObjectAsync(OWN2);
    const custom = { 'history.0': { enabled: true, aliasId: [PRIVATE2] } };
    await iob.storage.objects.setObjectAsync(OWN2, { ...obj!, common: { ...obj!.common, custom } } as never);
    await sleep(500);
    const read = await get(`/v1/getHistory/${OWN2}?${dayQuery}&aggregate=none`);
    t.equal(read.status, 403, `reading the own id reaches the private series: ${read.text.slice(0, 200)}`);
    const del = await sendTo('deleteAll', { id: OWN2 });
    t.equal(del.status, 403, `deleteAll of own id: ${del.text.slice(0, 200)}`);
    await sleep(300);
    t.same(await values(PRIVATE2), [SECRET, SECRET + 1], 'the private series is intact');
});

t.test('alias.0.* object pointing at a private state, history on the alias', async t => {
    const spy = 'alias.0.rx.spy';
    const create = await send('POST', `/v1/object/${spy}`, {
        type: 'state',
        common: {
            name: 'spy',
            type: 'number',
            role: 'state',
            read: true,
            write: false,
            alias: { id: PRIVATE },
            custom: { 'history.0': { enabled: true, changesOnly: false } },
        },
        native: {},
    });
    t.equal(
        create.status,
        403,
        `an alias to an unreadable state with history is refused: ${create.text.slice(0, 200)}`,
    );
    await sleep(1000);
    // the owner writes the private state; history records it under the alias (js-controller follows aliases)
    const now = Date.now();
    for (let i = 0; i < 4; i++) {
        const ts = Date.now();
        await iob.storage.states.setStateAsync(PRIVATE, {
            val: 777001 + i,
            ack: true,
            ts,
            lc: ts,
            from: 'system.adapter.test.0',
            q: 0,
        });
        await sleep(1500);
    }
    const live = await get(`/v1/state/${spy}`);
    t.notMatch(live.text, /77700\d/, `live read of the alias: ${live.status} ${live.text.slice(0, 200)}`);
    const hist = await get(`/v1/getHistory/${spy}?start=${now - 1000}&end=${now + 60_000}&aggregate=none`);
    t.notMatch(hist.text, /77700\d/, `history of the alias: ${hist.status} ${hist.text.slice(0, 300)}`);
    const adm = await get(`/v1/getHistory/${spy}?start=${now - 1000}&end=${now + 60_000}&aggregate=none`, ADMIN);
    t.comment(`admin sees: ${adm.status} ${adm.text.slice(0, 300)}`);
});

t.test('own state sharing a file name with a private recorded one: state writes land in the private file', async t => {
    // the user's state was recorded before the private one existed (or history enabled by an admin)
    await makeState(DOOR_TWIN, undefined, { 'history.0': { enabled: true, changesOnly: false } });
    await sleep(1000);
    const now = Date.now();
    const write = await send('PATCH', `/v1/state/${encodeURIComponent(DOOR_TWIN)}`, { val: 999001, ack: true });
    t.equal(write.status, 403, `writing the own twin state is refused: ${write.status} ${write.text.slice(0, 200)}`);
    await sleep(1000);
    // history keeps up to 960 values in memory per id; its stop writes them to the day's file both ids name
    await history.stop();
    history = await startHistory(iob.storage);
    const res = await get(
        `/v1/getHistory/${encodeURIComponent(DOOR)}?start=${now - 1000}&end=${now + 60_000}&aggregate=none`,
        ADMIN,
    );
    t.notMatch(res.text, '999001', `the private series holds no value of the user: ${res.text.slice(0, 300)}`);
});

t.test('history of a state the user may write but not read', async t => {
    t.equal((await get(`/v1/getHistory/${WONLY}?${dayQuery}`)).status, 403, 'reading it is refused');
    const del = await sendTo('deleteAll', { id: WONLY });
    t.equal(del.status, 403, `deleteAll of an unreadable series: ${del.text.slice(0, 200)}`);
    await sleep(300);
    t.same(await values(WONLY), [SECRET, SECRET + 1], 'the series is intact');
});

t.test('history left by a deleted private state', async t => {
    await iob.storage.objects.delObjectAsync(GONE);
    t.equal((await get(`/v1/getHistory/${GONE}?${dayQuery}`)).status, 403, 'reading it is refused');
    const del = await sendTo('deleteAll', { id: GONE });
    t.equal(del.status, 403, `deleteAll of a series without object: ${del.text.slice(0, 200)}`);
    const put = await sendTo('storeState', { id: GONE, state: { ts: DAY + 5, val: 1 } });
    t.equal(put.status, 403, `storeState into it: ${put.text.slice(0, 200)}`);
});

t.test('history settings of an object the user may not write (only its state)', async t => {
    const put = await send('PUT', `/v1/object/${SWITCH}`, { common: { custom: { 'history.0': { enabled: false } } } });
    t.equal(put.status, 403, `the user may not write the object itself: ${put.text.slice(0, 120)}`);
    const en = await sendTo('enableHistory', {
        id: SWITCH,
        options: { retention: 86400, maxLength: 1, debounceTime: 99 },
    });
    t.equal(en.status, 403, `enableHistory rewrites its settings: ${en.text.slice(0, 200)}`);
    const dis = await sendTo('disableHistory', { id: SWITCH });
    t.equal(dis.status, 403, `disableHistory stops its recording: ${dis.text.slice(0, 200)}`);
    await sleep(300);
    const obj = await iob.storage.objects.getObjectAsync(SWITCH);
    t.same(
        obj?.common.custom?.['history.0'],
        { enabled: true, maxLength: 960, retention: 31536000 },
        'settings unchanged',
    );
});

t.test('enableHistory on a state the user may write but not read, aliasId to its own state: values leak', async t => {
    const hidden = `${P}.hidden`;
    const sink = `${P}.sink`;
    await makeState(hidden, WRITE_ONLY_ACL);
    await makeState(sink);
    t.equal((await get(`/v1/state/${hidden}`)).status, 403, 'the user may not read the state');
    const en = await sendTo('enableHistory', {
        id: hidden,
        options: { enabled: true, aliasId: sink, changesOnly: false },
    });
    t.equal(en.status, 403, `enableHistory sending its values to the user's series: ${en.text.slice(0, 200)}`);
    await sleep(1000);
    const ts = Date.now();
    await iob.storage.states.setStateAsync(hidden, {
        val: 123456,
        ack: true,
        ts,
        lc: ts,
        from: 'system.adapter.test.0',
        q: 0,
    });
    await sleep(1000);
    const res = await get(`/v1/getHistory/${sink}?start=${ts - 1000}&end=${ts + 60_000}&aggregate=none`);
    t.notMatch(
        res.text,
        '123456',
        `the user's own series holds no value of the hidden state: ${res.status} ${res.text.slice(0, 200)}`,
    );
});

t.test('history messages and settings with ids that are not text', async t => {
    const state = { ts: DAY + 7, val: 1 };
    const list = await sendTo('storeState', [
        { id: OWN, state },
        { id: 1.5, state },
    ]);
    t.equal(list.status, 422, `an id that is a number is refused: ${list.text.slice(0, 200)}`);
    const inList = await sendTo('getHistory', { id: [OWN, 7], options: {} });
    t.equal(inList.status, 422, `a list holding a number is refused: ${inList.text.slice(0, 200)}`);
    const own3 = `${P}.own3`;
    await makeState(own3);
    const own = await sendTo('enableHistory', { id: own3, options: { enabled: true, aliasId: [OWN] } });
    t.equal(own.status, 422, `enableHistory with a list as aliasId: ${own.text.slice(0, 200)}`);
    const short = await get(`/v1/getHistory/${encodeURIComponent('0_userdata.0.|x')}?${dayQuery}`);
    t.equal(short.status, 422, `an id whose shared name spans a namespace: ${short.text.slice(0, 200)}`);
});

t.test('a series another private state files its values under (its aliasId names it): no way in through that id', async t => {
    // as after a device was replaced: the private new state records into the old id's series
    const NEW = `${P}.replaced.new`;
    const OLD = `${P}.replaced.old`;
    await makeState(NEW, PRIVATE_ACL, { 'history.0': { enabled: true, aliasId: OLD } });
    await store(OLD, [SECRET, SECRET + 1]);
    t.equal((await send('PUT', `/v1/object/${OLD}`, { type: 'state', common: { name: 'old', type: 'number', role: 'value', read: true, write: true }, native: {} })).status, 200, 'the user makes the old id its own');
    const read = await get(`/v1/getHistory/${OLD}?${dayQuery}&aggregate=none`);
    t.equal(read.status, 403, `its series holds the private state's values: ${read.text.slice(0, 200)}`);
    t.notMatch(read.text, String(SECRET));
    t.equal((await get(`/v1/history?ids=${OLD}&${dayQuery}`)).status, 403, 'the series route too');
    t.equal((await sendTo('deleteAll', { id: OLD })).status, 403, 'deleteAll is refused');
    t.same(await values(OLD), [SECRET, SECRET + 1], 'the private values are still there');
});

t.test('a list message whose items have no id is refused before it reaches history (it would stop the instance)', async t => {
    for (const data of [[{ id: OWN }, {}], [OWN], [{ id: OWN }, null]]) {
        const res = await sendTo('deleteAll', data);
        t.equal(res.status, 422, `${JSON.stringify(data)}: ${res.text.slice(0, 200)}`);
    }
    // history still answers: nothing reached it
    const alive = await iob.storage.states.getStateAsync('system.adapter.history.0.alive');
    t.equal(alive?.val, true, 'history.0 is alive');
    t.equal((await sendTo('deleteAll', [{ id: OWN }])).status, 200, 'a list of {id} the user may change still passes');
});
