/*
 * Issue 28, item 6, tried as an attacker would against real storage (in-process app): a paging Link
 * that repeats query credentials, subscriptions and id lists without a bound, password guessing
 * spread over addresses (several IPv4 addresses for one name, one IPv6 /64).
 */
import t from 'tap';
import { createState, createUser } from '../support/iobroker';
import { startHookReceiver, type HookReceiver } from '../support/hook-receiver';
import { startInProcess, type InProcessApp, type InProcessHost } from '../support/in-process';
import { basic } from '../support/raw-request';

const ADMIN = basic('admin', 'iobroker');
const P = '0_userdata.0.bounds';

let host: InProcessHost;
let app: InProcessApp;
let hooks: HookReceiver;
t.before(async () => {
    host = await startInProcess();
    for (let i = 0; i < 5; i++) {
        await createState(host.storage, `${P}.s${i}`, { type: 'number' }, i);
    }
    await createUser(host.storage, 'victim', { state: { read: true, list: true }, object: { read: true } }, 'right');
    app = await host.app({ auth: true });
    hooks = await startHookReceiver();
});
t.teardown(async () => {
    hooks?.close();
    await app?.close();
    await host?.stop();
});

const linkOf = (headers: Record<string, unknown>): string | undefined => /^<([^>]+)>; rel="next"$/.exec(String(headers.link ?? ''))?.[1];

t.test('a paging Link never repeats query credentials; following it with a header works', async t => {
    for (const first of [`/v1/states?filter=${P}.*&limit=2&user=admin&pass=iobroker`, `/v1/command/getStates?pattern=${P}.*&limit=2&user=admin&pass=iobroker`]) {
        const res = await app.request(first);
        t.equal(res.status, 200, first);
        const link = linkOf(res.headers);
        t.ok(link, 'a next page');
        t.notMatch(link, /[?&](user|pass)=/, `no credentials in ${link}`);
        t.notMatch(link, /iobroker/, 'not the password in any form');
        t.equal((await app.request(link!)).status, 401, 'the link alone is no login');
        const next = await app.request(link!, { headers: ADMIN });
        t.equal(next.status, 200, 'with credentials in a header it is the next page');
        const items = (next.json.result ?? next.json) as Record<string, unknown>;
        t.same(Object.keys(items), [`${P}.s2`, `${P}.s3`]);
    }
});

t.test('a polling session and a URL hook hold at most 1000 patterns: 422 naming the parameter', async t => {
    const polling = { method: 'polling', sid: 'many' };
    const targets: Array<[string, Record<string, unknown>]> = [
        ['polling session', polling],
        ['URL hook', { url: `${hooks.url}/many` }],
    ];
    for (const [what, target] of targets) {
        for (let i = 0; i < 1000; i++) {
            const res = await app.request('/v1/states/subscribe', { method: 'POST', headers: ADMIN, body: { ...target, pattern: `${P}.p${i}.*` } });
            if (res.status !== 200) {
                t.fail(`${what}: subscription ${i} answered ${res.status} ${res.text}`);
                return;
            }
        }
        let res = await app.request('/v1/states/subscribe', { method: 'POST', headers: ADMIN, body: { ...target, pattern: `${P}.one-more.*` } });
        t.equal(res.status, 422, `${what}: the 1001st pattern is refused`);
        t.match(res.json.details, [{ param: 'pattern' }]);
        res = await app.request(`/v1/objects/subscribe`, { method: 'POST', headers: ADMIN, body: { ...target, pattern: `${P}.objects.*` } });
        t.equal(res.status, 422, `${what}: object patterns count too`);
        res = await app.request(`/v1/state/${P}.s0/subscribe`, { method: 'POST', headers: ADMIN, body: target });
        t.equal(res.status, 422, `${what}: a single id too`);
        t.match(res.json.details, [{ param: 'stateId' }]);
        res = await app.request('/v1/states/subscribe', { method: 'POST', headers: ADMIN, body: { ...target, pattern: `${P}.p7.*`, onchange: true } });
        t.equal(res.status, 200, `${what}: a pattern it holds may be subscribed again (a new filter)`);
        res = await app.request('/v1/states/subscribe', { method: 'DELETE', headers: ADMIN, body: { ...target, pattern: `${P}.p7.*` } });
        t.equal(res.status, 200);
        res = await app.request('/v1/states/subscribe', { method: 'POST', headers: ADMIN, body: { ...target, pattern: `${P}.one-more.*` } });
        t.equal(res.status, 200, `${what}: after an unsubscribe there is room again`);
    }
    const listed = await app.request('/v1/states/subscribe?method=polling&sid=many', { headers: ADMIN });
    t.equal(listed.json.states.length, 1000);
});

t.test('an event stream takes at most 1000 patterns', async t => {
    const patterns = Array.from({ length: 1001 }, (_, i) => `a.${i}`);
    let res = await app.request(`/v1/events?pattern=${patterns.join(',')}`, { headers: ADMIN });
    t.equal(res.status, 422);
    t.match(res.json.details, [{ param: 'pattern' }]);
    res = await app.request(`/v1/events?pattern=${patterns.slice(0, 600).join(',')}&objects=${patterns.slice(600).join(',')}`, { headers: ADMIN });
    t.equal(res.status, 422, 'state and object patterns together');
    t.same(
        res.json.details.map((d: { param: string }) => d.param),
        ['pattern', 'objects'],
    );
});

t.test('id lists of getObjects and getStates hold at most 10,000 ids: 422 naming the parameter', async t => {
    const ids = Array.from({ length: 10_001 }, (_, i) => `${P}.none${i}`);
    let res = await app.request('/v1/command/getObjects', { method: 'POST', headers: ADMIN, body: { list: ids } });
    t.equal(res.status, 422);
    t.match(res.json.details, [{ param: 'list', problem: /less or equal to 10000/ }]);
    for (const name of ['getStates', 'getForeignStates']) {
        res = await app.request(`/v1/command/${name}`, { method: 'POST', headers: ADMIN, body: { pattern: ids } });
        t.equal(res.status, 422, name);
        t.match(res.json.details, [{ param: 'pattern', problem: /less or equal to 10000/ }]);
    }
    res = await app.request('/v1/command/getStates', { method: 'POST', headers: ADMIN, body: { pattern: [...ids.slice(0, 9_999), `${P}.s1`] } });
    t.equal(res.status, 200, '10,000 are still read');
    t.equal(res.json.result[`${P}.s1`].val, 1);
    res = await app.request('/v1/command/getObjects', { method: 'POST', headers: ADMIN, body: { list: 'not json' } });
    t.equal(res.status, 200, 'a pattern is still a pattern');
});

t.test('wrong passwords for one user from several addresses are damped sooner than per address alone', async t => {
    const login = (user: string, pass: string, remoteAddress: string) => app.request(`/v1/state/${P}.s0`, { headers: basic(user, pass), remoteAddress });
    t.equal((await login('victim', 'right', '127.0.9.100')).status, 200, 'the owner logs in from home first');
    t.equal((await login('victim', 'right', '127.0.9.101')).status, 200, 'and from a second address (its check remembered)');
    for (let i = 1; i <= 5; i++) {
        t.equal((await login('victim', `guess${i}`, `127.0.9.${i}`)).status, 401, `one guess from 127.0.9.${i}`);
    }
    // per address alone each has failed once: nothing would be locked (an address locks after 10)
    const fresh = await login('victim', 'guess6', '127.0.9.6');
    t.equal(fresh.status, 429, 'a sixth address is damped for this name');
    t.ok(Number(fresh.headers['retry-after']) <= 60, 'for a minute at most');
    t.equal((await login('victim', 'right', '127.0.9.1')).status, 429, 'an address that guessed is locked even with the right password');
    for (const spelling of ['Victim', 'VICTIM', 'system.user.victim']) {
        t.equal((await login(spelling, 'guess7', '127.0.9.7')).status, 429, `${spelling} is the same name`);
    }
    t.equal((await login('victim', 'right', '127.0.9.100')).status, 200, 'the owner from where it logged in before is not locked out');
    t.equal((await login('victim', 'right', '127.0.9.101')).status, 200, 'also where the login was answered from the remembered check');
    t.equal((await login('admin', 'iobroker', '127.0.9.6')).status, 200, 'another name from the sixth address is not damped');
});

t.test('guesses from one IPv6 /64 count together', async t => {
    const login = (user: string, remoteAddress: string) => app.request(`/v1/state/${P}.s0`, { headers: basic(user, 'wrong'), remoteAddress });
    for (let i = 0; i < 10; i++) {
        // a new name each time, alternating two addresses of one /64: only the network can be counted
        const res = await login(`nobody${i}`, i % 2 ? '2001:db8::2' : '2001:db8::1');
        t.equal(res.status, 401, `guess ${i}`);
    }
    t.equal((await login('nobody-else', '2001:db8::1')).status, 429, 'the first address is locked (five failures of its own would not)');
    t.equal((await login('nobody-else', '2001:db8::abcd')).status, 429, 'and every other address of that /64');
    t.equal((await login('nobody-else', '2001:db8:0:1::1')).status, 401, 'the next /64 is not');
    t.equal((await app.request(`/v1/state/${P}.s0`, { headers: ADMIN, remoteAddress: '2001:db8:0:1::1' })).status, 200);
});
