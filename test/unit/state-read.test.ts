/*
 * readStateOnce against js-controller's own reads on real storage: a plain id goes to the list read
 * (one MGET, no object read) and answers what the single read answers; aliases and ids the single
 * read refuses stay with the single read, so their answers and errors do not change.
 */
import t from 'tap';
import { startInProcess, type InProcessHost } from '../support/in-process';
import { adapterStorage } from '../../src/storage/adapter-storage';
import { batchedStateReader, readStateOnce } from '../../src/storage/state-read';
import type { StoragePort } from '../../src/storage/port';

let host: InProcessHost;
let port: StoragePort;
const calls: string[] = [];
const counted = (): Pick<StoragePort, 'getForeignStateAsync' | 'getForeignStatesAsync'> => ({
    getForeignStateAsync: ((id: string) => {
        calls.push('single');
        return port.getForeignStateAsync(id);
    }) as never,
    getForeignStatesAsync: ((ids: string[]) => {
        calls.push('list');
        return port.getForeignStatesAsync(ids as never);
    }) as never,
});

t.before(async () => {
    host = await startInProcess();
    port = adapterStorage(host.adapter as unknown as ioBroker.Adapter);
    const { objects, states } = host.storage;
    const state = (type: string) => ({ type: 'state', common: { name: 'x', type, role: 'value', read: true, write: true }, native: {} });
    await objects.setObjectAsync('0_userdata.0.read_num', state('number'));
    await states.setStateAsync('0_userdata.0.read_num', { val: 5, ack: true, from: 'system.adapter.test.0' });
    await objects.setObjectAsync('0_userdata.0.read_empty', state('number'));
    await objects.setObjectAsync('alias.0.read_alias', { ...state('number'), common: { ...state('number').common, alias: { id: '0_userdata.0.read_num', read: 'val * 2' } } });
});
t.teardown(async () => {
    await host?.stop();
});

t.test('a plain id: the list read, with the single read\'s answer', async t => {
    calls.length = 0;
    const once = await readStateOnce(counted(), '0_userdata.0.read_num');
    t.same(calls, ['list']);
    t.match(once, { val: 5, ack: true, from: 'system.adapter.test.0' });
    t.same(once, await port.getForeignStateAsync('0_userdata.0.read_num'));
});

t.test('no value, no object: null, as the single read', async t => {
    calls.length = 0;
    t.equal(await readStateOnce(counted(), '0_userdata.0.read_empty'), null);
    t.equal(await readStateOnce(counted(), '0_userdata.0.read_nothing'), null);
    t.same(calls, ['list', 'list']);
    t.equal(await port.getForeignStateAsync('0_userdata.0.read_nothing'), null);
});

t.test('an alias: the single read, which converts the target\'s value', async t => {
    calls.length = 0;
    const alias = await readStateOnce(counted(), 'alias.0.read_alias');
    t.same(calls, ['single']);
    t.equal(alias?.val, 10);
});

t.test('ids the single read refuses are still refused', async t => {
    calls.length = 0;
    await t.rejects(readStateOnce(counted(), ''));
    await t.rejects(readStateOnce(counted(), '0_userdata.0.read_num.'));
    t.same(calls, ['single', 'single']);
});

t.test('batched: reads made while one is on its way go out together, each with its own answer', async t => {
    const { states } = host.storage;
    const ids = Array.from({ length: 40 }, (_, i) => `0_userdata.0.read_batch${i}`);
    for (const [i, id] of ids.entries()) {
        await states.setStateAsync(id, { val: i, ack: true, from: 'system.adapter.test.0' });
    }
    calls.length = 0;
    const read = batchedStateReader(counted());
    const answers = await Promise.all([...ids, '0_userdata.0.read_nothing', 'alias.0.read_alias', ids[3]].map(id => read(id)));
    t.same(
        answers.slice(0, 40).map(s => s?.val),
        ids.map((_, i) => i),
        'every id its own value',
    );
    t.equal(answers[40], null, 'no state: null');
    t.equal(answers[41]?.val, 10, 'an alias still converted by the single read');
    t.equal(answers[42]?.val, 3, 'an id asked for twice in one batch answers both');
    t.same(answers[5], await port.getForeignStateAsync(ids[5]), 'the single read\'s answer');
    t.same(calls.filter(c => c === 'list').length, 2, 'the first alone, the rest in one list read');
    await t.rejects(read(''), 'an empty id is still refused');
});
