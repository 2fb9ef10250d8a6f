/*
 * Long polling load-tested round after round, as users do: three back-to-back rounds of fresh sessions,
 * each round as many as the per-user limit allows. A session its client emptied stops counting at once,
 * so every round finds room and delivers to every session. The limit is set to 2,000 here: a round
 * reaches it as 10,000 sessions reach the default (npm run bench -- --only polling runs those),
 * at a fifth of the CPU.
 */
import t from 'tap';
import { pollingRounds } from '../../bench/polling-rounds';
import { startIobroker, type IobFixture } from '../support/iobroker';

const SESSIONS = 2_000;
let iob: IobFixture;
t.before(async () => {
    iob = await startIobroker({ native: { pollSessionsPerUser: SESSIONS } });
});
t.teardown(() => iob?.stop());

t.test(`three rounds of ${SESSIONS} fresh sessions back to back at a limit of ${SESSIONS}: each delivers to all`, async t => {
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
