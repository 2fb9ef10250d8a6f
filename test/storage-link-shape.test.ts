/*
 * src/storage/link-state.ts is the one place that relies on js-controller's private shape: the adapter
 * assigns its database client classes to `adapter.States`/`adapter.Objects`, and each client keeps its
 * subscriber connection in `sub` and its patterns in `userSubscriptions`. This test fails, naming what
 * changed, when the js-controller in the dev workspace no longer has that shape; and it shows the
 * fallback: with a link that cannot be trusted the caches are off, and the API still serves.
 */
import t from 'tap';
import { StorageLink } from '../src/storage/link-state';
import { startInProcess, type InProcessHost } from './support/in-process';

let host: InProcessHost;
t.before(async () => {
    host = await startInProcess();
});
t.teardown(() => host?.stop());

t.test("js-controller's adapter and clients have the shape the storage link relies on", async t => {
    // an app subscribes, which opens the clients' subscriber connections
    const app = await host.app();
    t.teardown(() => app.close());
    const problems = host.link.checkShape();
    t.same(problems, [], `js-controller changed what src/storage/link-state.ts relies on: ${problems.join('; ')}`);
    t.ok(host.link.trusted, 'so the link vouches for the caches');
});

t.test('a changed shape is named and turns the link untrusted', async t => {
    const adapter = {} as ioBroker.Adapter;
    const link = new StorageLink(adapter);
    // as if js-controller kept its client classes elsewhere and its clients had no `sub`
    (adapter as unknown as { States: unknown }).States = class {
        userSubscriptions = {};
    };
    new (adapter as unknown as { States: new (settings: unknown) => unknown }).States({});
    const problems = link.checkShape();
    t.match(problems, [/no longer assigns its objects client class to adapter\.Objects/, /has no subscriber connection in "sub"/], problems.join('; '));
    t.equal(problems.length, 2);
    t.notOk(link.trusted);
});

t.test('untrusted, the caches are off and the API still serves what the database holds', async t => {
    const app = await host.app();
    t.teardown(async () => {
        host.link.trusted = true;
        await app.close();
    });
    const id = '0_userdata.0.shape.value';
    await host.storage.objects.setObjectAsync(id, { _id: id, type: 'state', common: { name: id, type: 'number', role: 'value', read: true, write: true }, native: {} });
    await host.storage.states.setStateAsync(id, { val: 1, ack: true });
    // the cache admits an id once it is asked for again (its frequency sketch)
    for (let i = 0; i < 3; i++) {
        t.equal((await app.request(`/v1/state/${id}`)).json?.val, 1);
    }
    t.not(app.services.data.states.peek(id), undefined, 'trusted: a read is cached');
    host.link.trusted = false;
    t.equal(app.services.data.states.peek(id), undefined, 'untrusted: nothing is served from the cache');
    await host.storage.states.setStateAsync(id, { val: 2, ack: true });
    t.equal((await app.request(`/v1/state/${id}`)).json?.val, 2, 'the API reads the database');
    t.equal(app.services.data.states.peek(id), undefined, 'and caches nothing');
});
