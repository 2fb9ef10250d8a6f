import t from 'tap';
import { KeyedLock } from '../../src/storage/keyed-lock';

function gate() {
    let open!: () => void;
    const opened = new Promise<void>(resolve => (open = resolve));
    return { open, opened };
}

const turn = () => new Promise(resolve => setImmediate(resolve));

t.test('plain (shared) holders run side by side; an exclusive one waits for them, and later holders wait for it', async t => {
    const lock = new KeyedLock();
    const log: string[] = [];
    const a = gate();
    const b = gate();
    const c = gate();
    const first = lock.run('id', async () => (log.push('a start'), await a.opened, log.push('a end')), { shared: true });
    const second = lock.run('id', async () => (log.push('b start'), await b.opened, log.push('b end')), { shared: true });
    const exclusive = lock.run('id', async () => (log.push('x start'), await c.opened, log.push('x end')));
    const after = lock.run('id', async () => log.push('c start'), { shared: true });
    await turn();
    t.same(log, ['a start', 'b start'], 'two plain writes at once; the conditional one waits');
    a.open();
    await turn();
    t.notOk(log.includes('x start'), 'still waiting for the second plain write');
    b.open();
    await turn();
    await turn();
    t.same(log.slice(-1), ['x start'], 'then alone');
    t.notOk(log.includes('c start'), 'a plain write after it waits for it');
    c.open();
    await Promise.all([first, second, exclusive, after]);
    t.same(log.slice(-2), ['x end', 'c start']);
    t.equal(lock.size, 0, 'nothing stays behind');
});

t.test('exclusive holders one at a time; a failing one releases the key', async t => {
    const lock = new KeyedLock();
    let running = 0;
    let most = 0;
    const work = (fail: boolean) => async () => {
        most = Math.max(most, ++running);
        await turn();
        running--;
        if (fail) {
            throw new Error('412');
        }
    };
    const results = await Promise.allSettled([lock.run('k', work(true)), lock.run('k', work(false)), lock.run('k', work(false))]);
    t.same(results.map(r => r.status), ['rejected', 'fulfilled', 'fulfilled']);
    t.equal(most, 1);
    t.equal(lock.size, 0);
});

t.test('other keys do not wait', async t => {
    const lock = new KeyedLock();
    const held = gate();
    const one = lock.run('a', () => held.opened);
    let other = false;
    await lock.run('b', async () => void (other = true));
    t.ok(other);
    held.open();
    await one;
});

t.test('work that throws before its first await rejects and releases the key; the next holder runs', async t => {
    const lock = new KeyedLock();
    const boom = (): Promise<void> => {
        throw new Error('sync');
    };
    await t.rejects(lock.run('id', boom, { shared: true }), /sync/, 'a shared holder');
    await t.rejects(lock.run('id', boom), /sync/, 'an exclusive holder');
    let ran = false;
    await lock.run('id', async () => void (ran = true));
    t.ok(ran, 'a conditional write after them does not wait for ever');
    await turn();
    t.equal(lock.size, 0, 'nothing stays behind');
});

t.test('an exclusive holder waits for a failing shared one to end, then runs', async t => {
    const lock = new KeyedLock();
    const failing = gate();
    const log: string[] = [];
    const shared = lock.run('id', async () => {
        log.push('shared start');
        await failing.opened;
        throw new Error('write failed');
    }, { shared: true });
    const exclusive = lock.run('id', async () => void log.push('exclusive'));
    await turn();
    t.same(log, ['shared start'], 'still waiting');
    failing.open();
    await t.rejects(shared, /write failed/);
    await exclusive;
    t.same(log, ['shared start', 'exclusive']);
    await turn();
    t.equal(lock.size, 0);
});
