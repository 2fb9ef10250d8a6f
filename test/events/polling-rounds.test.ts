/*
 * Long polling load-tested round after round, as users do: three back-to-back rounds of 10,000 fresh
 * sessions against the adapter with its default limits (10,000 sessions per user). A session its
 * client emptied stops counting at once, so every round finds room and delivers to every session.
 */
import t from 'tap';
import { pollingRounds } from '../../bench/polling-rounds';
import { startIobroker, type IobFixture } from '../support/iobroker';

const SESSIONS = 10_000;
let iob: IobFixture;
t.before(async () => {
    iob = await startIobroker();
});
t.teardown(() => iob?.stop());

t.test('three rounds of 10,000 fresh sessions back to back: each delivers 10,000 of 10,000', async t => {
    const rounds = await pollingRounds({ url: iob.baseUrl, sessions: SESSIONS }, 3, figures =>
        t.comment(JSON.stringify(figures)),
    );
    for (const figures of rounds) {
        t.equal(figures.refused, 0, `round ${figures.round}: no session refused`);
        t.equal(figures.delivered, SESSIONS, `round ${figures.round}: every session got the write`);
    }
    const open = await iob.request('/metrics');
    t.match(open.text, /restapi_open_clients\{kind="polling"\} 0\b/, 'no session left counting after the last round');
});
