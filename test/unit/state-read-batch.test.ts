/*
 * The batched state reader's queueing (pure logic, with a port whose list reads the test answers by
 * hand): a read alone goes out at once, reads meanwhile go together in the next list read, a failed
 * list read is retried per id so one failure stays with its caller, and a flood is cut into batches.
 */
import t from 'tap';
import { batchedStateReader } from '../../src/storage/state-read';

interface Pending {
    ids: string[];
    answer(values?: Record<string, unknown>): void;
    fail(err: Error): void;
}

function handPort() {
    const pending: Pending[] = [];
    const port = {
        getForeignStateAsync: (async (id: string) => ({ val: `single:${id}` })) as never,
        getForeignStatesAsync: ((ids: string[]) =>
            new Promise((resolve, reject) => {
                pending.push({
                    ids,
                    answer: values => resolve(values ?? Object.fromEntries(ids.map(id => [id, { val: id }]))),
                    fail: reject,
                });
            })) as never,
    };
    return { pending, read: batchedStateReader(port) };
}

const turn = () => new Promise(resolve => setImmediate(resolve));

t.test('alone at once; the ones meanwhile in one list read after it', async t => {
    const { pending, read } = handPort();
    const first = read('a.0.x');
    await turn();
    t.same(pending.map(p => p.ids), [['a.0.x']], 'the first goes out without waiting');
    const rest = ['a.0.y', 'a.0.z', 'a.0.y'].map(id => read(id));
    await turn();
    t.equal(pending.length, 1, 'nothing more while it is on its way');
    pending[0].answer();
    t.same(await first, { val: 'a.0.x' });
    await turn();
    t.same(pending[1].ids, ['a.0.y', 'a.0.z'], 'then the waiting ones together, each id once');
    pending[1].answer({ 'a.0.y': { val: 1 } });
    t.same(await Promise.all(rest), [{ val: 1 }, null, { val: 1 }], 'each caller its own answer; a missing id is null');
});

t.test('a failed list read is retried per id: one failure stays with its caller', async t => {
    const { pending, read } = handPort();
    const first = read('a.0.first');
    const waiting = ['a.0.good', 'a.0.bad'].map(id => read(id));
    pending[0].answer();
    await first;
    await turn();
    pending[1].fail(new Error('batch failed'));
    await turn();
    t.same(
        pending.slice(2).map(p => p.ids),
        [['a.0.good'], ['a.0.bad']],
        'each id again on its own',
    );
    pending[2].answer();
    pending[3].fail(new Error('bad id'));
    t.same(await waiting[0], { val: 'a.0.good' });
    await t.rejects(waiting[1], { message: 'bad id' });

    const lone = read('a.0.lone');
    await turn();
    pending[4].fail(new Error('down'));
    await t.rejects(lone, { message: 'down' }, 'a read alone fails with its own error, not retried');
    t.equal(pending.length, 5);
});

t.test('a flood is cut into list reads of at most 256 ids', async t => {
    const { pending, read } = handPort();
    const first = read('f.0.first');
    const flood = Array.from({ length: 600 }, (_, i) => read(`f.0.s${i}`));
    await turn();
    t.same(
        pending.map(p => p.ids.length),
        [1, 256, 256],
        'full batches go out at once, side by side',
    );
    pending.forEach(p => p.answer());
    await first;
    await Promise.all(flood.slice(0, 512));
    await turn();
    t.equal(pending[3].ids.length, 88, 'the rest once one came back');
    pending[3].answer();
    t.same(await flood[599], { val: 'f.0.s599' });
});

t.test('only own keys of the answer count: an id named like an inherited property is null when missing', async t => {
    const { pending, read } = handPort();
    const answers = ['constructor', 'toString', '__proto__'].map(id => read(id));
    await turn();
    pending[0].answer({});
    await turn();
    pending[1].answer({});
    t.same(await Promise.all(answers), [null, null, null]);
});

t.test('the DB down: a failed batch is not read again id by id', async t => {
    const { pending, read } = handPort();
    const first = read('d.0.first');
    const waiting = ['d.0.a', 'd.0.b', 'd.0.c'].map(id => read(id));
    pending[0].answer();
    await first;
    await turn();
    pending[1].fail(new Error('DB closed'));
    for (const answer of waiting) {
        await t.rejects(answer, { message: 'DB closed' });
    }
    await turn();
    t.equal(pending.length, 2, 'no read per id after it');
});

t.test('aliases and refused ids keep the single read', async t => {
    const { pending, read } = handPort();
    t.same(await read('alias.0.x'), { val: 'single:alias.0.x' });
    t.same(await read(''), { val: 'single:' });
    t.same(await read('a.0.x.'), { val: 'single:a.0.x.' });
    t.equal(pending.length, 0);
});
