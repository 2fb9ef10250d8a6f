import t from 'tap';
import { aclFromGroups, AclCache, mayRead } from '../../src/acl';
import { EventAccess } from '../../src/events/event-access';
import { ChangeFeed } from '../../src/lib/change-feed';

// pure logic: a feed whose js-controller side does nothing, groups and objects from tables
const port = {
    subscribeForeignStatesAsync: async () => undefined,
    unsubscribeForeignStatesAsync: async () => undefined,
    subscribeForeignObjectsAsync: async () => undefined,
    unsubscribeForeignObjectsAsync: async () => undefined,
};
const groups = [
    { _id: 'system.group.user', common: { members: ['system.user.ann'], acl: { state: { read: true }, object: { read: true } } } },
    { _id: 'system.group.blind', common: { members: ['system.user.bob'], acl: { state: { read: false }, object: { read: false } } } },
    { _id: 'system.group.administrator', common: { members: ['system.user.root'] } },
];
const ann = aclFromGroups('system.user.ann', groups);
const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms));

t.test('read bits of owner, owner group and everyone decide, as in js-controller', async t => {
    const acl = (state: number, owner = 'system.user.admin', ownerGroup = 'system.group.administrator') => ({ owner, ownerGroup, object: 0x664, state });
    t.ok(mayRead(ann, 'state', acl(0x664)), 'everyone may read');
    t.notOk(mayRead(ann, 'state', acl(0x660)), 'only owner and group may read');
    t.ok(mayRead(ann, 'state', acl(0x660, 'system.user.admin', 'system.group.user')), 'member of the owner group');
    t.ok(mayRead(ann, 'state', acl(0x600, 'system.user.ann')), 'the owner');
    t.notOk(mayRead(ann, 'state', acl(0x060, 'system.user.ann')), 'the owner without owner bits');
    t.ok(mayRead(ann, 'state', null), 'no ACL on the object');
    t.ok(mayRead(ann, 'state', { owner: 'x', ownerGroup: 'y', object: 0x664 }), 'state falls back to the object bits');
    t.notOk(mayRead(aclFromGroups('system.user.bob', groups), 'state', null), 'the group right is needed as well');
    t.ok(mayRead(aclFromGroups('system.user.root', groups), 'object', acl(0)), 'administrator group reads every object');
});

t.test('a user only receives events of states it may read, in order', async t => {
    const feed = new ChangeFeed(port);
    const objects: Record<string, { acl: { owner: string; ownerGroup: string; object: number; state: number } }> = {
        'a.open': { acl: { owner: 'system.user.admin', ownerGroup: 'system.group.administrator', object: 0x664, state: 0x664 } },
        'a.secret': { acl: { owner: 'system.user.admin', ownerGroup: 'system.group.administrator', object: 0x664, state: 0x600 } },
    };
    let loads = 0;
    const access = new EventAccess(feed, new AclCache(async () => groups), async id => {
        loads++;
        await sleep(5);
        return objects[id];
    });
    t.equal(access.sourceFor('system.user.admin'), feed, 'the administrator listens to the feed itself');
    const seen: string[] = [];
    const release = await access.sourceFor('system.user.ann').listen('state', 'a.*', (id, state) => seen.push(`${id}=${(state as { val: number }).val}`));
    for (let i = 0; i < 3; i++) {
        feed.emit('state', 'a.secret', { val: i } as never);
        feed.emit('state', 'a.open', { val: i } as never);
    }
    await sleep(50);
    t.same(seen, ['a.open=0', 'a.open=1', 'a.open=2']);
    t.equal(loads, 2, 'each object ACL read once');

    // the owner opens the state to everyone: the object change refreshes the cached ACL
    feed.emit('object', 'a.secret', { acl: { ...objects['a.secret'].acl, state: 0x664 } } as never);
    feed.emit('state', 'a.secret', { val: 9 } as never);
    await sleep(20);
    t.same(seen.at(-1), 'a.secret=9');
    t.equal(loads, 2);

    await release();
    feed.emit('state', 'a.open', { val: 10 } as never);
    await sleep(20);
    t.notOk(seen.includes('a.open=10'), 'nothing after release');
});

t.test('object events are checked against the object they carry', async t => {
    const feed = new ChangeFeed(port);
    const access = new EventAccess(feed, new AclCache(async () => groups), async () => null);
    const seen: string[] = [];
    await access.sourceFor('system.user.ann').listen('object', 'b.*', id => seen.push(id));
    feed.emit('object', 'b.hidden', { acl: { owner: 'system.user.admin', ownerGroup: 'system.group.administrator', object: 0x600 } } as never);
    feed.emit('object', 'b.shown', { acl: { owner: 'system.user.admin', ownerGroup: 'system.group.administrator', object: 0x664 } } as never);
    feed.emit('object', 'b.gone', null);
    await sleep(20);
    t.same(seen, ['b.shown', 'b.gone']);
});

t.test('a failing ACL lookup hides the event and is retried next time', async t => {
    const feed = new ChangeFeed(port);
    let fail = true;
    const access = new EventAccess(feed, new AclCache(async () => groups), async () => {
        if (fail) {
            throw new Error('DB closed');
        }
        return null;
    });
    const seen: number[] = [];
    await access.sourceFor('system.user.ann').listen('state', 'c', (_id, state) => seen.push((state as { val: number }).val));
    feed.emit('state', 'c', { val: 1 } as never);
    await sleep(10);
    fail = false;
    feed.emit('state', 'c', { val: 2 } as never);
    await sleep(10);
    t.same(seen, [2]);
});
