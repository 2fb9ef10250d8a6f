import t from 'tap';
import { deadline, type Timers } from '../../src/instance/timers';
import { nodeTimers } from '../support/timers';

/** js-controller's timers while the instance stops: none are given. */
const stopping = { ...nodeTimers, setTimeout: () => undefined } as unknown as Timers;

t.test('a deadline fires after its time, and not once cancelled', async t => {
    const fired: string[] = [];
    deadline(nodeTimers, 10, () => fired.push('kept'));
    const cancel = deadline(nodeTimers, 10, () => fired.push('cancelled'));
    cancel();
    await new Promise<void>(resolve => nodeTimers.setTimeout(() => resolve(), 40));
    t.same(fired, ['kept']);
});

t.test('while the instance stops (no timer given) a deadline fires on the next microtask, so no wait hangs', async t => {
    let fired = 0;
    const cancel = deadline(stopping, 60_000, () => fired++);
    t.equal(fired, 0, 'not within the caller: it registers what the deadline ends first');
    await Promise.resolve();
    t.equal(fired, 1);
    t.doesNotThrow(cancel);
});
