/*
 * The kept ids of paged walks (pure logic, with a clock the test moves): later pages come from the
 * kept ids, a walk belongs to the one who began it, and the memory it may hold is bounded.
 */
import t from 'tap';
import { firstAfter, ListingWalks } from '../../src/objects/listing-walks';
import { listingPage, type ListingSource } from '../../src/objects/listing-pages';

const ids = (n: number, prefix = 'a.'): string[] => Array.from({ length: n }, (_, i) => `${prefix}${String(i).padStart(6, '0')}`);

t.test('pages follow the kept ids; the last page forgets the walk', async t => {
    const walks = new ListingWalks();
    const walk = walks.start('me', ids(10))!;
    t.ok(walk);
    t.same(walks.next(walk, 'me', 'a.000003', 4), { ids: ['a.000004', 'a.000005', 'a.000006', 'a.000007'], more: true });
    t.same(walks.next(walk, 'me', 'a.000007', 4), { ids: ['a.000008', 'a.000009'], more: false });
    t.equal(walks.next(walk, 'me', 'a.000009', 4), undefined, 'gone after its last page');
    t.equal(walks.size, 0);
});

t.test('a walk is only continued by the one who began it, and not after it idled out', async t => {
    let now = 0;
    const walks = new ListingWalks(() => now);
    const walk = walks.start('admin\nstates', ids(10))!;
    t.equal(walks.next(walk, 'guest\nstates', 'a.000000', 2), undefined, 'another key');
    t.equal(walks.next('made-up', 'admin\nstates', 'a.000000', 2), undefined, 'unknown walk');
    t.ok(walks.next(walk, 'admin\nstates', 'a.000000', 2));
    now += 5 * 60_000 + 1;
    t.equal(walks.next(walk, 'admin\nstates', 'a.000002', 2), undefined, 'idle too long');
});

t.test('bounded: at most 16 walks and 100,000 ids, the least recently used go first', async t => {
    const walks = new ListingWalks();
    const first = walks.start('k', ids(10))!;
    const others = Array.from({ length: 16 }, () => walks.start('k', ids(10)));
    t.equal(walks.size, 16);
    t.equal(walks.next(first, 'k', '', 1), undefined, 'the oldest was evicted');
    t.ok(walks.next(others[0]!, 'k', '', 1), 'the others are kept');
    t.equal(walks.start('k', ids(100_001)), undefined, 'a walk above the bound is not kept at all');
    walks.start('k', ids(99_950));
    t.ok(walks.size < 16, 'room was made by evicting');
    t.equal(walks.next(others[1]!, 'k', '', 1), undefined, 'evicted for the ids');
});

t.test('firstAfter finds the position after an id, present or not', async t => {
    const list = ['a', 'c', 'e'];
    t.same([firstAfter(list, ''), firstAfter(list, 'a'), firstAfter(list, 'b'), firstAfter(list, 'e'), firstAfter(list, 'z')], [0, 1, 1, 3, 3]);
});

t.test('listingPage: the first page reads all, later ones only their ids; a lost walk falls back to a full read', async t => {
    const store: Record<string, { val: number }> = Object.fromEntries(ids(25).map((id, i) => [id, { val: i }]));
    const reads: string[] = [];
    const source: ListingSource = {
        all: () => {
            reads.push('all');
            return { ...store };
        },
        some: async wanted => {
            reads.push(`some ${wanted.length}`);
            return Object.fromEntries(wanted.filter(id => store[id]).map(id => [id, store[id]]));
        },
    };
    const walks = new ListingWalks();
    const seen: string[] = [];
    let page = await listingPage(walks, 'k', { limit: 10 }, source);
    seen.push(...Object.keys(page.items));
    delete store['a.000012'];
    page = await listingPage(walks, 'k', { limit: 10, cursor: page.next }, source);
    seen.push(...Object.keys(page.items));
    t.notOk('a.000012' in page.items, 'deleted meanwhile: not listed');
    page = await listingPage(walks, 'k', { limit: 10, cursor: page.next }, source);
    seen.push(...Object.keys(page.items));
    t.equal(page.next, undefined, 'the last page');
    t.same(reads, ['all', 'some 10', 'some 5']);
    t.same(seen, ids(25).filter(id => id !== 'a.000012'));
    reads.length = 0;
    page = await listingPage(walks, 'k', { limit: 10, cursor: { after: 'a.000019', walk: 'lost' } }, source);
    t.same(Object.keys(page.items), ids(25).slice(20));
    t.same(reads, ['all'], 'a lost walk reads everything once');
    page = await listingPage(walks, 'k', { fields: ['val'] }, source);
    t.equal(Object.keys(page.items).length, 24, 'without limit: everything, projected');
});
