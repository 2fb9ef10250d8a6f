/*
 * Raw JSON of `/v1/history` and the count of `/v1/getHistory` against the real history adapter, on a
 * dense day (test/support/dense-history.ts). history 5.0.1, given a count, keeps a day file's newest
 * values before it looks at the range, so the values must be read in windows and counted by us; an
 * answer over the budget is a 422, never a cut one.
 */
import t from 'tap';
import { AUTH, DAY, DAY_MS, HOUR, HUGE, IDS, inRange, startDenseHistory, STEP, valueOf, type DenseHistory } from './support/dense-history';

let dense: DenseHistory;
const get = (path: string): ReturnType<DenseHistory['get']> => dense.get(path);

t.before(async () => {
    dense = await startDenseHistory();
});
t.teardown(() => dense?.stop());

t.test('25 ids × an hour early in a dense day (before the newest 40,000 values of its file): every value in range of every id', async t => {
    const start = DAY + 2 * HOUR;
    const end = start + HOUR - 1;
    const res = await get(`/v1/history?ids=${IDS.join(',')}&start=${start}&end=${end}`);
    t.equal(res.status, 200, res.text.slice(0, 300));
    const expected = inRange(start, end);
    t.ok(expected.length > 2000);
    for (const id of IDS) {
        t.same(
            (res.json[id] as Array<{ ts: number }>).map(p => p.ts),
            expected,
            `${id}: the ${expected.length} values of the hour`,
        );
    }
    const oldest = await get(`/v1/history?ids=${IDS.join(',')}&start=${start}&end=${end}&count=10`);
    t.same(oldest.json[IDS[3]].map((p: { ts: number }) => p.ts), expected.slice(0, 10), 'count: the oldest in range');
    const newest = await get(`/v1/history?ids=${IDS.join(',')}&start=${start}&end=${end}&count=10&returnNewestEntries=true`);
    t.same(newest.json[IDS[3]].map((p: { ts: number }) => p.ts), expected.slice(-10), 'with returnNewestEntries: the newest');
});

t.test('over the budget: 422 naming the limit, not a cut answer', async t => {
    // 20 hours: 41,667 values of each id, more than 20,000 each for 25 ids
    const res = await get(`/v1/history?ids=${IDS.join(',')}&start=${DAY}&end=${DAY + 20 * HOUR - 1}`);
    t.equal(res.status, 422, res.text.slice(0, 300));
    t.match(res.json?.error, /more than 20,000 values in the range \(the bound per id with 25 ids\)/);
    const count = await get(`/v1/history?ids=${IDS.join(',')}&start=${DAY}&end=${DAY + HOUR}&count=30000`);
    t.equal(count.status, 422, 'a count above the share of each id');
    t.match(count.json?.error, /at most 20,000 raw values per id with 25 ids/);
    const one = await get(`/v1/history?ids=${HUGE}&start=${DAY}&end=${DAY + DAY_MS - 1}`);
    t.equal(one.status, 422, 'one id: 100,000 values');
    t.match(one.json?.error, /more than 100,000 values/);
});

t.test('/v1/getHistory, the getHistory command and sendTo getHistory: count and limit as history reads them, bounded', async t => {
    const range = { start: DAY, end: DAY + DAY_MS - 1 };
    const query = `start=${range.start}&end=${range.end}`;
    const sendTo = (options: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
        dense.iob.request('/v1/sendto/history.0', { method: 'POST', headers: AUTH, body: { message: 'getHistory', data: { id: IDS[0], options: { ...range, ...options } }, ...extra } });
    const command = (options: Record<string, unknown>) => get(`/v1/command/getHistory?id=${IDS[0]}&options=${encodeURIComponent(JSON.stringify({ ...range, ...options }))}`);
    // raw values over the bound: history would apply a smaller count to the day's newest values first
    const refused = [
        await get(`/v1/getHistory/${IDS[0]}?${query}&aggregate=none&count=200000`),
        await dense.iob.request('/v1/getHistory', { method: 'POST', headers: AUTH, body: { id: IDS[0], options: { ...range, aggregate: 'none', limit: 1e9 } } }),
        await command({ aggregate: 'none', count: '150000' }),
        await sendTo({ aggregate: 'onchange', count: [1000000] }),
        await sendTo({ aggregate: 'none', count: 0, limit: ' 200000' }),
        await sendTo({ aggregate: 'none', count: 1e9 }, { noResponse: true }),
    ];
    for (const [i, res] of refused.entries()) {
        t.equal(res.status, 422, `${i}: ${res.text.slice(0, 200)}`);
        t.match(res.json?.error, /at most 100,000 raw values/, `${i}: names the bound and /v1/history`);
    }
    for (const res of [await get(`/v1/getHistory/${IDS[0]}?${query}&count=-1`), await command({ aggregate: 'none', count: -5 }), await sendTo({ aggregate: 'none', count: '-1' })]) {
        t.equal(res.status, 422, `a negative count: ${res.text.slice(0, 200)}`);
    }
    const alive = await get(`/v1/getHistory/${IDS[0]}?${query}&aggregate=none&count=5`);
    t.same([alive.status, alive.json?.length], [200, 5], 'the history instance still answers');
    // an aggregate's count is its number of intervals: asked as 100,001, an answer that fits is 4.0.2's
    const buckets = await get(`/v1/getHistory/${IDS[0]}?${query}&aggregate=max&count=200000`);
    t.equal(buckets.status, 200, buckets.text.slice(0, 200));
    t.ok(buckets.json.length > 1000 && buckets.json.length <= 100_001, `${buckets.json.length} intervals`);
    const over = await get(`/v1/getHistory/${HUGE}?${query}&aggregate=max&count=150000`);
    t.equal(over.status, 422, `more than 100,000 intervals back: ${over.text.slice(0, 200)}`);
    const small = await sendTo({ aggregate: 'none', count: 5 });
    t.same([small.status, small.json?.result?.length], [200, 5], 'a count within the bound goes as it is');
});

t.test('onchange: the values in range, and at start and end the value before and after them, as history adds them', async t => {
    const start = DAY + 2 * HOUR + 1;
    const end = start + 10_000;
    const first = Math.ceil((start - DAY) / STEP);
    const last = Math.floor((end - DAY) / STEP);
    const res = await get(`/v1/history?ids=${IDS[1]}&start=${start}&end=${end}&aggregate=onchange`);
    t.equal(res.status, 200, res.text.slice(0, 300));
    const expected = [
        { ts: start, val: valueOf(1, first - 1) },
        ...Array.from({ length: last - first + 1 }, (_, i) => ({ ts: DAY + (first + i) * STEP, val: valueOf(1, first + i) })),
        { ts: end, val: valueOf(1, last + 1) },
    ];
    t.same(res.json[IDS[1]], expected);
    const without = await get(`/v1/history?ids=${IDS[1]}&start=${start}&end=${end}&aggregate=onchange&removeBorderValues=true`);
    t.same(without.json[IDS[1]], expected.slice(1, -1), 'removeBorderValues: only the values in range');
});

t.test('CSV with onchange: every value in range of 25 dense ids, with the values at start and end', async t => {
    const start = DAY + 2 * HOUR + 1;
    const end = start + HOUR;
    const first = Math.ceil((start - DAY) / STEP);
    const last = Math.floor((end - DAY) / STEP);
    const res = await get(`/v1/history?ids=${IDS.join(',')}&start=${start}&end=${end}&aggregate=onchange&format=csv&layout=long`);
    t.equal(res.status, 200, res.text.slice(0, 300));
    const rows = res.text.trim().split(/\r?\n/).slice(1).map(line => line.split(/[;,]/));
    for (const [index, id] of [[1, IDS[1]], [24, IDS[24]]] as const) {
        const own = rows.filter(row => row[0] === id);
        const expected = [
            [start, valueOf(index, first - 1)],
            ...Array.from({ length: last - first + 1 }, (_, i) => [DAY + (first + i) * STEP, valueOf(index, first + i)]),
            [end, valueOf(index, last + 1)],
        ];
        t.same(own.map(row => [Number(row[1]), Number(row[3])]), expected, `${id}: the ${expected.length - 2} values of the hour and the two at its edges`);
    }
    const without = await get(`/v1/history?ids=${IDS[1]}&start=${start}&end=${end}&aggregate=onchange&removeBorderValues=true&format=csv&layout=long`);
    t.equal(without.text.trim().split(/\r?\n/).length - 1, last - first + 1, 'removeBorderValues: only the values in range');
});

t.test('the id-days bound holds for every read in daily windows: onchange CSV and raw JSON too', async t => {
    const ids = IDS.slice(0, 20).join(',');
    const end = DAY + 2500 * DAY_MS;
    for (const extra of ['&format=csv&aggregate=onchange', '&aggregate=none', '&aggregate=onchange', '']) {
        const res = await get(`/v1/history?ids=${ids}&start=${DAY}&end=${end}${extra}`);
        t.equal(res.status, 422, `${extra || 'raw JSON'}: ${res.text.slice(0, 200)}`);
        t.match(res.json?.error, /id-days/);
    }
});
