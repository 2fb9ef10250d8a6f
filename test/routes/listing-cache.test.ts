/*
 * Kept state listings (src/storage/cache/listing-cache.ts) against real storage: GET /v1/states?filter=prefix*
 * after writes by other clients, writes through the API, states created and deleted elsewhere, and
 * a storage outage.
 */
import t from 'tap';
import { startInProcess, type InProcessHost } from '../support/in-process';
import { appFixture, type AppFixture } from '../support/in-process-fixture';

const FILTER = '0_userdata.0.list.*';
const ID = '0_userdata.0.list.a';
let host: InProcessHost;
let iob: AppFixture;
t.before(async () => {
    host = await startInProcess();
    // over a real socket: the tests read in tight loops until a change is notified; requests answered
    // from memory without a socket would never let the notification in
    iob = await appFixture(host, {}, { socket: true });
    await iob.createState(ID, { type: 'number' }, 0);
    await iob.createState('0_userdata.0.list.b', { type: 'number' }, 0);
});
t.teardown(async () => {
    await iob?.close();
    await host?.stop();
});

const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms));
const listing = async (): Promise<Record<string, { val: unknown } | null>> => {
    const res = await iob.request(`/v1/states?filter=${FILTER}`);
    if (res.status !== 200) {
        throw new Error(`listing answered ${res.status}: ${res.text}`);
    }
    return res.json;
};
const writeElsewhere = (id: string, val: number) => iob.storage.states.setStateAsync(id, { val, ack: true, from: 'system.adapter.other.0' });

/** Lists until `done` holds or a second passed; returns the last listing. */
async function listUntil(done: (list: Record<string, { val: unknown } | null>) => boolean): Promise<Record<string, { val: unknown } | null>> {
    const end = Date.now() + 1000;
    let list = await listing();
    while (!done(list) && Date.now() < end) {
        list = await listing();
    }
    return list;
}

t.test('a value written by another client is listed once notified, never an older one afterwards', async t => {
    await listing();
    await sleep(100);
    for (let val = 1; val <= 15; val++) {
        await writeElsewhere(ID, val);
        let list = await listing();
        const end = Date.now() + 1000;
        while (list[ID]?.val !== val && Date.now() < end) {
            t.ok((list[ID]?.val as number) >= val - 1, `never older than the previous value (${list[ID]?.val})`);
            list = await listing();
        }
        t.equal(list[ID]?.val, val, `value ${val} listed within 1 s`);
        t.equal((await listing())[ID]?.val, val, 'and stays');
    }
});

t.test('a write through the API is in the very next listing', async t => {
    await listing();
    await sleep(100);
    for (let val = 100; val < 115; val++) {
        t.equal((await iob.request(`/v1/state/${ID}`, { method: 'PATCH', body: { val, ack: true } })).status, 200);
        t.equal((await listing())[ID]?.val, val, `PATCH ${val}`);
        t.equal((await iob.request(`/v1/state/${ID}?value=${val + 1000}`)).status, 200);
        t.equal((await listing())[ID]?.val, val + 1000, `GET write ${val + 1000}`);
    }
});

t.test('states created and deleted by another client come and go from the listing', async t => {
    const id = '0_userdata.0.list.new';
    await listing();
    await sleep(100);
    t.notOk(id in (await listing()), 'not there yet');
    await iob.createState(id, { type: 'number' }, 7);
    t.equal((await listUntil(list => list[id]?.val === 7))[id]?.val, 7, 'a new state is listed within 1 s');
    await iob.storage.objects.delObjectAsync(id);
    await iob.storage.states.delState(id);
    t.notOk(id in (await listUntil(list => !(id in list))), 'a deleted state leaves within 1 s');
    t.equal((await listing())[ID]?.val !== undefined, true, 'the others stay');
});

t.test('after the storage connection drops and returns, no stale listing is served', async t => {
    await writeElsewhere(ID, 500);
    t.equal((await listUntil(list => list[ID]?.val === 500))[ID]?.val, 500, 'kept');
    await iob.storage.bounce(1000);
    await writeElsewhere(ID, 501);
    const back = Date.now();
    let seen: unknown;
    do {
        const res = await iob.request(`/v1/states?filter=${FILTER}`);
        seen = res.status === 200 ? res.json[ID]?.val : undefined;
        if (seen !== undefined) {
            t.not(seen, 500, 'never the listing from before the outage');
        }
    } while (seen !== 501 && Date.now() - back < 5000);
    t.equal(seen, 501);
});

t.test('listings the cache does not keep still answer as js-controller does', async t => {
    const exact = await iob.request(`/v1/states?filter=${ID}`);
    t.equal(exact.status, 200);
    t.same(Object.keys(exact.json), [ID], 'an exact id');
    const inner = await iob.request('/v1/states?filter=0_userdata.0.*.a');
    t.ok(ID in inner.json && !('0_userdata.0.list.b' in inner.json), 'an inner *');
});
