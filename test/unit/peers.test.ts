/*
 * Which other instances count as peers, from their alive states and instance objects: only alive
 * instances of a version that shares (5 or newer), never this instance itself. The storage and the
 * change feed are stand-ins here: this is the decision alone (the cluster tests run it on Redis).
 */
import t from 'tap';
import type { ChangeFeed, ChangeListener } from '../../src/storage/change-feed';
import { watchPeers } from '../../src/storage/peers';

function setUp(versions: Record<string, string>, alive: Record<string, boolean>) {
    let listener: ChangeListener | undefined;
    const objectReads: string[] = [];
    let holdObjectReads: Promise<void> | undefined;
    const storage = {
        getForeignStatesAsync: async () =>
            Object.fromEntries(Object.entries(alive).map(([instance, val]) => [`system.adapter.${instance}.alive`, { val, ack: true, ts: 1, lc: 1, from: 'x' }])),
        getForeignObjectAsync: async (id: string) => {
            objectReads.push(id);
            await holdObjectReads;
            const version = versions[id.replace('system.adapter.', '')];
            return version ? { _id: id, type: 'instance', common: { version }, native: {} } : null;
        },
    };
    const feed = {
        listen: async (_kind: string, _pattern: string, l: ChangeListener) => {
            listener = l;
            return async () => undefined;
        },
    } as unknown as ChangeFeed;
    const peers = watchPeers(storage as never, feed, 'rest-api.0');
    const change = (instance: string, val: boolean | null): void =>
        listener!(`system.adapter.${instance}.alive`, val === null ? null : ({ val, ack: true, ts: 2, lc: 2, from: 'x' } as ioBroker.State));
    const settle = (): Promise<void> => new Promise(r => setImmediate(r));
    const hold = (): (() => void) => {
        let release!: () => void;
        holdObjectReads = new Promise(r => (release = r));
        return release;
    };
    return { peers, change, settle, hold, objectReads, versions, alive };
}

t.test('an alive instance of this major version is a peer; this instance itself never is', async t => {
    const { peers } = setUp({ 'rest-api.0': '5.0.0', 'rest-api.1': '5.1.2' }, { 'rest-api.0': true, 'rest-api.1': true });
    await peers.start();
    t.same(peers.alive(), ['rest-api.1']);
    t.ok(peers.any());
});

t.test('a 4.x instance beside this one (the bench comparison, an old instance kept) is no peer', async t => {
    const { peers, change, settle } = setUp({ 'rest-api.1': '4.0.2', 'rest-api.2': '5.0.0-alpha.0' }, { 'rest-api.1': true });
    await peers.start();
    t.same(peers.alive(), [], 'alive 4.0.2 at start: not counted');
    t.notOk(peers.any(), 'so this instance pays no read barrier');
    change('rest-api.2', true);
    await settle();
    t.same(peers.alive(), ['rest-api.2'], 'a 5.x instance coming up is counted');
});

t.test('an instance updated to a sharing version counts from its next heartbeat', async t => {
    const { peers, change, settle, versions } = setUp({ 'rest-api.1': '4.0.2' }, { 'rest-api.1': true });
    await peers.start();
    t.same(peers.alive(), []);
    versions['rest-api.1'] = '5.0.0';
    change('rest-api.1', true);
    await settle();
    t.same(peers.alive(), ['rest-api.1']);
});

t.test('alive false, or the state gone when its TTL ran out, removes the peer', async t => {
    const { peers, change, settle } = setUp({ 'rest-api.1': '5.0.0', 'rest-api.2': '5.0.0' }, { 'rest-api.1': true, 'rest-api.2': true });
    await peers.start();
    t.same(peers.alive(), ['rest-api.1', 'rest-api.2']);
    change('rest-api.1', false);
    change('rest-api.2', null);
    await settle();
    t.same(peers.alive(), []);
    t.notOk(peers.any());
});

t.test('a version check that ends after a newer "not alive" does not bring the peer back', async t => {
    const { peers, change, settle, hold } = setUp({ 'rest-api.1': '5.0.0' }, {});
    await peers.start();
    const release = hold();
    change('rest-api.1', true); // its instance object is still being read
    change('rest-api.1', false);
    release();
    await settle();
    await settle();
    t.same(peers.alive(), [], 'the later false wins');
});

t.test('an instance without an instance object or version is no peer', async t => {
    const { peers } = setUp({}, { 'rest-api.3': true });
    await peers.start();
    t.same(peers.alive(), []);
});

t.test('an instance whose alive state left the database unannounced stops counting at the next refresh', async t => {
    const { peers, alive } = setUp({ 'rest-api.1': '5.0.0', 'rest-api.2': '5.0.0' }, { 'rest-api.1': true, 'rest-api.2': true });
    await peers.start();
    let changes = 0;
    peers.onChange(() => changes++);
    t.same(peers.alive(), ['rest-api.1', 'rest-api.2']);
    // its TTL ran out in a Redis without keyspace notifications: no change was announced
    delete alive['rest-api.1'];
    await peers.refresh();
    t.same(peers.alive(), ['rest-api.2'], 'found missing in what the database holds');
    t.equal(changes, 1, 'the change is told once');
    await peers.refresh();
    t.equal(changes, 1, 'a refresh that finds the same tells nothing');
    alive['rest-api.1'] = true;
    await peers.refresh();
    t.same(peers.alive(), ['rest-api.1', 'rest-api.2'], 'back when it is alive again');
    t.equal(changes, 2);
});
