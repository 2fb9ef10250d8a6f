/*
 * `/v1/history` checks the caller's rights on the ids before it parses times and zones: a refused
 * request answers 403 whatever else it holds, and leaves no remembered zone spelling behind.
 */
import t from 'tap';
import { startInProcess, type InProcessHost } from '../support/in-process';
import { appFixture, type AppFixture } from '../support/in-process-fixture';
import { zoneSpellingsHeld } from '../../src/history/times';

let host: InProcessHost;
let limited: AppFixture;

t.before(async () => {
    host = await startInProcess();
    limited = await appFixture(host, { defaultUser: 'limited', dataSource: 'history.0' });
    await limited.createUser('limited', { other: { sendto: true }, state: { read: true }, object: { read: true } });
    await limited.createState('0_userdata.0.private', { type: 'number' }, 1);
    const obj = await limited.storage.objects.getObjectAsync('0_userdata.0.private');
    obj.acl = { owner: 'system.user.admin', ownerGroup: 'system.group.administrator', object: 0x644, state: 0x600 };
    await limited.storage.objects.setObjectAsync('0_userdata.0.private', obj);
});
t.teardown(async () => {
    await limited?.close();
    await host?.stop();
});

t.test('a refused caller gets 403 before its times and zones are read', async t => {
    const id = '0_userdata.0.private';
    for (const query of [`tz=Mars/Olympus`, `start=yesterday`, `tz=EUROPE/berlin&period=day`]) {
        const res = await limited.request(`/v1/history?ids=${id}&${query}`);
        t.equal(res.status, 403, `${query}: ${res.text}`);
    }
    const posted = await limited.request('/v1/history', { method: 'POST', body: { ids: [id], tz: 'Mars/Olympus', end: 'never' } });
    t.equal(posted.status, 403, posted.text);
    const before = zoneSpellingsHeld();
    for (const zone of Intl.supportedValuesOf('timeZone').slice(0, 40)) {
        t.equal((await limited.request(`/v1/history?ids=${id}&tz=${encodeURIComponent(zone.toUpperCase())}`)).status, 403);
    }
    t.equal(zoneSpellingsHeld(), before, 'no zone spelling of a refused request is remembered');
    const noIds = await limited.request('/v1/history?tz=Mars/Olympus');
    t.equal(noIds.status, 422, 'without ids there is nothing to check rights on: the missing ids are named');
    t.match(noIds.json.details, [{ param: 'ids' }]);
});
