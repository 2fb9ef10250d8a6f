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

function caller(
    objects: Record<string, { acl?: typeof PRIVATE; common?: unknown }>,
): SeriesCaller & { views: number; rows: number } {
    const withType = (id: string): ioBroker.Object | null =>
        objects[id]
            ? ({ _id: id, type: 'state', common: {}, native: {}, ...objects[id] } as unknown as ioBroker.Object)
            : null;
    const ctx = {
        acl: bee,
        ownerOnly: false,
        views: 0,
        rows: 0,
        objectOf: async (id: string) => withType(id),
        stateObjectsBetween: async (first: string, last: string) => {
            ctx.views++;
            const rows = Object.keys(objects)
                .filter(id => id >= first && id <= last)
                .sort()
                .map(id => ({ id, value: withType(id) }));
            ctx.rows += rows.length;
            return rows;
        },
        customSettings: async () =>
            Object.entries(objects)
                .filter(([, obj]) => (obj.common as { custom?: unknown } | undefined)?.custom)
                .map(([id, obj]) => ({ id, value: (obj.common as { custom?: unknown }).custom })),
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
    for (const id of ['a.0.b', 'a.0.door|code', 'a.0.x:y/z\\w', 'a.0."q"\'<>?,;*', 'a.0.b~c', 'a.0.\u0000b']) {
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
        'a.0.door|code': { acl: PRIVATE },
        'a.0.door~code': {},
        'a.0.door~codes': { acl: PRIVATE },
        'a.0.doorbell': { acl: PRIVATE },
    });
    t.equal(await outcome(assertMayUseSeries(ctx, 'a.0.door~code', 'read', readRule)), '403 a.0.door~code');
    const open = caller({
        'a.0.door|code': { acl: READ_ONLY },
        'a.0.door~code': {},
        'a.0.door~codes': { acl: PRIVATE },
    });
    t.equal(
        await outcome(assertMayUseSeries(open, 'a.0.door~code', 'read', readRule)),
        'allowed',
        'readable sharer, a longer id is no sharer',
    );
    t.match(
        await outcome(assertMayUseSeries(open, 'a.0.door~code', 'change', readRule)),
        /^403 /,
        'changing needs the write right on it',
    );
    const plain = caller({ 'a.0.plain': {} });
    t.equal(await outcome(assertMayUseSeries(plain, 'a.0.plain', 'read', readRule)), 'allowed');
    t.equal(plain.views, 0, 'an id without such characters shares no name: no view');
});

t.test('more candidates than the bound are refused, not compared', async t => {
    const objects: Record<string, object> = { 'a.0.b:c': {} };
    for (let i = 0; i < MAX_SHARED_NAME_SCAN; i++) {
        objects[`a.0.b|c${i}`] = {};
    }
    t.match(await outcome(assertMayUseSeries(caller(objects), 'a.0.b:c', 'read', readRule)), /^403 /);
});

t.test('only ids with such a character where the asked one has its first are read, not every id beginning alike', async t => {
    const objects: Record<string, object> = { 'a.0.b:c.d|e': {}, 'a.0.b/c.d~e': {}, 'a.0.b~c.d~e': {} };
    for (let i = 0; i < MAX_SHARED_NAME_SCAN; i++) {
        objects[`a.0.b${i}`] = {};
        objects[`a.0.b.c${i}`] = {};
    }
    const ctx = caller(objects);
    t.equal(await outcome(assertMayUseSeries(ctx, 'a.0.b:c.d|e', 'read', readRule)), 'allowed');
    t.equal(ctx.rows, 3, 'the three ids with / : or ~ after a.0.b are all that was read');
    // every character history replaces, at the first place, is found
    for (const character of ['\u0000', '|', '*', ',', ';', '"', "'", '<', '>', '?', ':', '/', '\\', '~']) {
        const asked = character === ':' ? 'a.0.b|c' : 'a.0.b:c';
        const sharer = caller({ [asked]: {}, [`a.0.b${character}c`]: { acl: PRIVATE } });
        t.equal(await outcome(assertMayUseSeries(sharer, asked, 'read', readRule)), `403 ${asked}`, JSON.stringify(character));
    }
});

t.test('an aliasId counts in reads and changes; unchanged settings pass a write', async t => {
    const ctx = caller({
        'a.0.own': { common: { custom: { 'sql.0': { enabled: true, aliasId: 'a.0.secret' } } } },
        'a.0.secret': { acl: PRIVATE },
        'a.0.mine': {},
    });
    t.equal(await outcome(assertMayUseSeries(ctx, 'a.0.own', 'read', readRule)), '403 a.0.own');
    t.match(await outcome(assertMayUseSeries(ctx, 'a.0.own', 'change', readRule)), /^403 /);
    const before = await ctx.objectOf('a.0.own');
    t.equal(await outcome(assertMaySetHistorySettings(ctx, 'a.0.own', before, before)), 'allowed', 'as it was');
    t.match(
        await outcome(
            assertMaySetHistorySettings(ctx, 'a.0.new', null, {
                common: { custom: { 'history.0': { enabled: true, aliasId: 'a.0.secret' } } },
            }),
        ),
        /^403 /,
    );
    t.match(
        await outcome(
            assertMaySetHistorySettings(ctx, 'a.0.new', null, {
                common: { custom: { 'history.0': { enabled: true, aliasId: 'a.0.nothing' } } },
            }),
        ),
        /^403 /,
        'an aliasId must name an existing state',
    );
    t.equal(
        await outcome(
            assertMaySetHistorySettings(ctx, 'a.0.new', null, {
                common: { custom: { 'history.0': { enabled: true, aliasId: 'a.0.mine' } } },
            }),
        ),
        'allowed',
    );
});

t.test(
    'an aliasId that is not text counts as its text (as history takes it), and a write of it is refused',
    async t => {
        t.same(aliasTargets({ common: { custom: { 'history.0': { aliasId: ['a.0.x'] } } } }), ['a.0.x']);
        t.same(aliasTargets({ common: { custom: { 'sql.0': { aliasId: ['a.0.x', 'a.0.y'] } } } }), ['a.0.x,a.0.y']);
        const ctx = caller({ 'a.0.secret': { acl: PRIVATE }, 'a.0.mine': {} });
        const settings = (aliasId: unknown): unknown => ({
            common: { custom: { 'influxdb.0': { enabled: true, aliasId } } },
        });
        t.equal(
            await outcome(assertMaySetHistorySettings(ctx, 'a.0.new', null, settings(['a.0.secret']))),
            '403 a.0.new',
        );
        t.equal(
            await outcome(assertMaySetHistorySettings(ctx, 'a.0.new', null, settings(['a.0.mine']))),
            '422 a.0.new',
        );
        t.equal(await outcome(assertMaySetHistorySettings(ctx, 'a.0.new', null, settings({ id: 1 }))), '403 a.0.new');
        t.equal(
            await outcome(assertMaySetHistorySettings(ctx, 'a.0.new', null, settings(''))),
            'allowed',
            'empty: none',
        );
    },
);

t.test('an id whose shared file name would span an adapter or all ids is refused before any view', async t => {
    const ctx = caller({ 'a.0.x': {} });
    for (const id of ['|x', 'a|x', 'a.0|x', 'a.0.|x']) {
        t.equal(await outcome(assertMayUseSeries(ctx, id, 'read', readRule)), `422 ${id}`, JSON.stringify(id));
    }
    t.equal(ctx.views, 0, 'no view was read');
});

t.test('a series another state files its values under (its aliasId names it) needs the rights on that state', async t => {
    // as after a device was replaced: the private new state records into the old id's series
    const settings = { custom: { 'history.0': { enabled: true, aliasId: 'a.0.old' } } };
    const ctx = caller({ 'a.0.new': { acl: PRIVATE, common: settings }, 'a.0.old': {}, 'a.0.other': {} });
    t.equal(await outcome(assertMayUseSeries(ctx, 'a.0.old', 'read', readRule)), '403 a.0.old', 'read');
    t.equal(await outcome(assertMayUseSeries(ctx, 'a.0.old', 'change', readRule)), '403 a.0.old', 'change');
    t.equal(await outcome(assertMayUseSeries(ctx, 'a.0.other', 'read', readRule)), 'allowed', 'another id is not touched');
    // an id of the same file name is filed with it
    const shared = caller({ 'a.0.new': { acl: PRIVATE, common: { custom: { 'sql.0': { aliasId: ['a.0.x|y'] } } } }, 'a.0.x~y': {} });
    t.equal(await outcome(assertMayUseSeries(shared, 'a.0.x~y', 'read', readRule)), '403 a.0.x~y', 'a list aliasId of the same file name');
    const readable = caller({ 'a.0.new': { acl: READ_ONLY, common: settings }, 'a.0.old': {} });
    t.equal(await outcome(assertMayUseSeries(readable, 'a.0.old', 'read', readRule)), 'allowed', 'a readable state filing there may be read');
    t.equal(await outcome(assertMayUseSeries(readable, 'a.0.old', 'change', readRule)), '403 a.0.old', 'but not changed');
});

t.test('an aliasId to an own state that a private state names as aliasId too: that series holds the private values', async t => {
    const recorded = { custom: { 'history.0': { enabled: true } } };
    const ctx = caller({
        'a.0.target': { common: recorded },
        'a.0.via': { common: { custom: { 'history.0': { enabled: true, aliasId: 'a.0.target' } } } },
        'a.0.filer': { acl: PRIVATE, common: { custom: { 'history.0': { enabled: true, aliasId: 'a.0.target' } } } },
    });
    t.equal(await outcome(assertMayUseSeries(ctx, 'a.0.via', 'read', readRule)), '403 a.0.via', 'read through the own aliasId');
    t.equal(await outcome(assertMayUseSeries(ctx, 'a.0.target', 'read', readRule)), '403 a.0.target', 'read of the target');
    const alone = caller({
        'a.0.target': { common: recorded },
        'a.0.via': { common: { custom: { 'history.0': { enabled: true, aliasId: 'a.0.target' } } } },
    });
    t.equal(await outcome(assertMayUseSeries(alone, 'a.0.via', 'read', readRule)), 'allowed', 'without the private filer');
});
