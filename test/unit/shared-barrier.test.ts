import t from 'tap';
import { sharedBarrier } from '../../src/storage/cache/shared-barrier';

t.test('callers of one turn share a round trip sent after that turn; later callers get their own', async t => {
    const sent: number[] = [];
    let turn = 0;
    const barrier = sharedBarrier(async () => {
        sent.push(turn);
    });
    const first = [barrier(), barrier(), barrier()];
    turn = 1; // still the same turn: the round trip must not have been sent yet
    t.same(sent, [], 'not sent within the callers turn');
    await Promise.all(first);
    t.same(sent, [1], 'one round trip for three callers, sent after them');
    await barrier();
    t.equal(sent.length, 2, 'a caller after that gets a new one');
});
