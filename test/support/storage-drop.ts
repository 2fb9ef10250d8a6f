/*
 * What must hold while js-controller's storage is away and after it returns, shared by the jsonl
 * variant (in-process DB servers) and the Redis variant (a redis-server child).
 */
import type { Test } from 'tap';
import { startHookReceiver } from './hook-receiver';
import type { IobFixture } from './iobroker';

const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms));

export async function until<T>(probe: () => Promise<T>, done: (value: T) => boolean, ms: number): Promise<T> {
    const end = Date.now() + ms;
    let value = await probe();
    while (!done(value) && Date.now() < end) {
        await sleep(50);
        value = await probe();
    }
    return value;
}

const seesValue = (text: string, val: number): boolean =>
    !!text && JSON.parse(text).some((e: { state?: { val: number } }) => e.state?.val === val);

/**
 * Needs a state `id` of type number and an adapter started with short hook
 * retries. `bounce(ms)` takes the storage away for that long; `write` changes the state as another
 * client of js-controller would.
 */
export async function storageDropTest(
    t: Test,
    iob: IobFixture,
    id: string,
    bounce: (ms: number) => Promise<void>,
    write: (val: number) => Promise<unknown>,
): Promise<void> {
    const hooks = await startHookReceiver();
    t.teardown(hooks.close);
    t.equal((await iob.request(`/v1/state/${id}`, { method: 'PATCH', body: { val: 41, ack: true } })).status, 200, 'written before the drop');
    t.equal((await iob.request(`/v1/state/${id}`)).json?.val, 41, 'and cached by a read');
    t.equal((await iob.request('/v1/states/subscribe?sid=f', { method: 'POST', body: { method: 'polling', pattern: `${id}*` } })).status, 200);
    t.equal((await iob.request(`/v1/state/${id}/subscribe`, { method: 'POST', body: { url: hooks.url } })).status, 200);

    const away = bounce(2500);
    await sleep(300);
    const started = Date.now();
    const during = await iob.request(`/v1/state/${id}`);
    t.equal(during.status, 503, 'refused while away');
    t.ok(during.headers['retry-after'], 'with Retry-After');
    t.match(during.json, { error: /Database not connected/ });
    t.ok(Date.now() - started < 1000, 'without waiting for the DB');
    t.equal((await iob.request(`/v1/command/getState?id=${id}`)).status, 503, 'commands too');
    await away;

    const back = await until(() => iob.request(`/v1/state/${id}`), res => res.status === 200, 15_000);
    t.equal(back.status, 200, 'serving again');
    t.equal(back.json.val, 41, 'nothing written before the drop was lost');

    hooks.received = [];
    // drain whatever the session queued before, then a change after the reconnect must arrive
    await iob.request('/v1/polling?sid=f&batch=true&timeout=1000');
    await write(42);
    const polled = await until(() => iob.request('/v1/polling?sid=f&batch=true&timeout=1000'), res => seesValue(res.text, 42), 5000);
    t.ok(seesValue(polled.text, 42), 'the poller hears the change');
    const hooked = await until(async () => hooks.received.map(r => r.body).join('\n'), text => text.includes('"val":42'), 5000);
    t.match(hooked, '"val":42', 'the hook hears it');
    t.equal((await iob.request(`/v1/state/${id}`)).json?.val, 42, 'a read after the reconnect is not served from a stale cache');
}
