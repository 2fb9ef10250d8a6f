import t from 'tap';
import type { Acl } from '../../src/access/rules';
import {
    aliasTargets,
    assertMaySetHistorySettings,
    assertMayUseSeries,
    MAX_SHARED_NAME_SCAN,
    storageName,
    type SeriesCaller,
} from '../../src/access/history-rights';

// pure logic: objects from a table, a view over their sorted ids; the history adapter's own file naming to compare with
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { getSafeId } = require('iobroker.history/build/lib/getHistory.js') as { getSafeId(id: string): string };

const all = { read: true, write: true, list: true, create: true, delete: true };
const bee: Acl = {
    user: 'system.user.bee',
    groups: ['system.group.bee'],
    object: all,
    state: all,
    file: {},
    users: {},
    other: {},
};
const PRIVATE = { owner: 'system.user.admin', ownerGroup: 'system.group.administrator', object: 0x600, state: 0x600 };
const READ_ONLY = { ...PRIVATE, object: 0x644, state: 0x644 };

function caller(objects: Record<string, { acl?: typeof PRIVATE; common?: unknown }>): SeriesCaller & { views: number } {
    const withType = (id: string): ioBroker.Object | null =>
        objects[id]
            ? ({ _id: id, type: 'state', common: {}, native: {}, ...objects[id] } as unknown as ioBroker.Object)
            : null;
    const ctx = {
        acl: bee,
        ownerOnly: false,
        views: 0,
        objectOf: async (id: string) => withType(id),
        stateObjectsBetween: async (first: string, last: string) => {
            ctx.views++;
            return Object.keys(objects)
                .filter(id => id >= first && id <= last)
                .sort()
                .map(id => ({ id, value: withType(id) }));
        },
    };
    return ctx;
}

/** The refusal's status and the id it names, or 'allowed'. */
async function outcome(check: Promise<void>): Promise<string> {
    try {
        await check;
        return 'allowed';
    } catch (err) {
        const e = err as { status?: number; context?: { id?: string } };
        return `${e.status} ${e.context?.id}`;
    }
}

const readRule = (obj: unknown): boolean => obj !== null;

t.test("the file name is the history adapter's own", async t => {
    for (const id of ['a.b', 'a.door|code', 'a.x:y/z\\w', 'a."q"\'<>?,;*', 'a.b~c', 'a.\u0000b']) {
        t.equal(storageName(id), getSafeId(id), JSON.stringify(id));
    }
});

t.test('aliasTargets: the aliasIds of every instance, once each', async t => {
    const obj = {
        common: {
            custom: {
                'history.0': { aliasId: 'x.1' },
                'sql.0': { aliasId: 'x.2' },
                'influxdb.0': { aliasId: 'x.1' },
                'other.0': { aliasId: '' },
                'bad.0': null,
            },
        },
    };
    t.same(aliasTargets(obj).sort(), ['x.1', 'x.2']);
    t.same(aliasTargets(null), []);
    t.same(aliasTargets({ common: { custom: 'text' } }), []);
});

t.test('a series is refused when any state sharing its file name is not readable', async t => {
    const ctx = caller({
        'a.door|code': { acl: PRIVATE },
        'a.door~code': {},
        'a.door~codes': { acl: PRIVATE },
        'a.doorbell': { acl: PRIVATE },
    });
    t.equal(await outcome(assertMayUseSeries(ctx, 'a.door~code', 'read', readRule)), '403 a.door~code');
    const open = caller({ 'a.door|code': { acl: READ_ONLY }, 'a.door~code': {}, 'a.door~codes': { acl: PRIVATE } });
    t.equal(
        await outcome(assertMayUseSeries(open, 'a.door~code', 'read', readRule)),
        'allowed',
        'readable sharer, a longer id is no sharer',
    );
    t.match(
        await outcome(assertMayUseSeries(open, 'a.door~code', 'change', readRule)),
        /^403 /,
        'changing needs the write right on it',
    );
    const plain = caller({ 'a.plain': {} });
    t.equal(await outcome(assertMayUseSeries(plain, 'a.plain', 'read', readRule)), 'allowed');
    t.equal(plain.views, 0, 'an id without such characters shares no name: no view');
});

t.test('more candidates than the bound are refused, not compared', async t => {
    const objects: Record<string, object> = { 'a.b:c': {} };
    for (let i = 0; i < MAX_SHARED_NAME_SCAN; i++) {
        objects[`a.b${i}`] = {};
    }
    t.match(await outcome(assertMayUseSeries(caller(objects), 'a.b:c', 'read', readRule)), /^403 /);
});

t.test('an aliasId counts in reads and changes; unchanged settings pass a write', async t => {
    const ctx = caller({
        'a.own': { common: { custom: { 'sql.0': { enabled: true, aliasId: 'a.secret' } } } },
        'a.secret': { acl: PRIVATE },
        'a.mine': {},
    });
    t.equal(await outcome(assertMayUseSeries(ctx, 'a.own', 'read', readRule)), '403 a.own');
    t.match(await outcome(assertMayUseSeries(ctx, 'a.own', 'change', readRule)), /^403 /);
    const before = await ctx.objectOf('a.own');
    t.equal(await outcome(assertMaySetHistorySettings(ctx, 'a.own', before, before)), 'allowed', 'as it was');
    t.match(
        await outcome(
            assertMaySetHistorySettings(ctx, 'a.new', null, {
                common: { custom: { 'history.0': { enabled: true, aliasId: 'a.secret' } } },
            }),
        ),
        /^403 /,
    );
    t.match(
        await outcome(
            assertMaySetHistorySettings(ctx, 'a.new', null, {
                common: { custom: { 'history.0': { enabled: true, aliasId: 'a.nothing' } } },
            }),
        ),
        /^403 /,
        'an aliasId must name an existing state',
    );
    t.equal(
        await outcome(
            assertMaySetHistorySettings(ctx, 'a.new', null, {
                common: { custom: { 'history.0': { enabled: true, aliasId: 'a.mine' } } },
            }),
        ),
        'allowed',
    );
});
