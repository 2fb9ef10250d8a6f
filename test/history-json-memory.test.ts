/*
 * What a raw JSON answer of 500,000 values (the budget of raw JSON: 25 ids × 20,000) costs the adapter, against
 * the real history adapter on a dense day: every value comes, and the adapter's RSS grows by less than
 * 64 MB while it is read and written. A file of its own: reading it takes minutes.
 */
import t from 'tap';
import { DAY, IDS, inRange, STEP, startDenseHistory, valueOf, type DenseHistory } from './support/dense-history';

let dense: DenseHistory;

t.before(async () => {
    dense = await startDenseHistory();
});
t.teardown(() => dense?.stop());

t.test('a JSON answer of 500,000 values (25 ids × 20,000): every value, within 64 MB of our memory', async t => {
    const end = DAY + 19_999 * STEP;
    const before = dense.rssMB();
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, dense.rssMB())), 50);
    const res = await dense.get(`/v1/history?ids=${IDS.join(',')}&start=${DAY}&end=${end}`).finally(() => clearInterval(sampler));
    t.equal(res.status, 200, res.text.slice(0, 300));
    t.match(res.headers['content-type'], /^application\/json/);
    const expected = inRange(DAY, end);
    t.equal(expected.length, 20_000);
    IDS.forEach((id, i) => {
        const values = res.json[id] as Array<{ ts: number; val: number }>;
        t.equal(values.length, 20_000, `${id}: every value in range`);
        t.same([values[0], values.at(-1)], [{ ts: expected[0], val: valueOf(i, 0) }, { ts: expected.at(-1), val: valueOf(i, 19_999) }]);
    });
    t.comment(`adapter RSS before ${before.toFixed(0)} MB, peak ${peak.toFixed(0)} MB, +${(peak - before).toFixed(0)} MB for ${res.text.length.toLocaleString('en')} characters`);
    t.ok(peak - before < 64, `our RSS grew by ${(peak - before).toFixed(0)} MB (at most 64)`);
});
