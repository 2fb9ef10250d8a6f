/*
 * The pure parts of /v1/history: times, calendar buckets, statistics, CSV fields, the request's
 * checks, and how several ids are read when some of them fail.
 */
import { DateTime } from 'luxon';
import t from 'tap';
import { HttpError } from '../../src/http/http-error';
import { bucketStarts } from '../../src/history/calendar';
import { errorsHeader } from '../../src/routes/history-series';
import { csvField, csvRecord } from '../../src/history/csv';
import { csvAnswer, rawRows } from '../../src/history/series-answer';
import { MAX_VALUES, seriesQuery } from '../../src/history/series-query';
import { HELD_VALUES } from '../../src/history/spans';
import { claimRequest, SeriesReader, windows } from '../../src/history/series-read';
import { BucketStatistics } from '../../src/history/statistics';
import { isoIn, knownZone, parseTime, ZONE_SPELLINGS, zoneSpellingsHeld } from '../../src/history/times';

const HOUR = 3_600_000;
const NOW = Date.UTC(2026, 10, 28, 12);

t.test('times: ms, ISO 8601 in the zone when it names no offset, relative to one now', async t => {
    t.equal(parseTime('1795000000000', NOW, 'UTC'), 1795000000000);
    t.equal(parseTime(1795000000000, NOW, 'UTC'), 1795000000000);
    t.equal(parseTime('now', NOW, 'UTC'), NOW);
    t.equal(parseTime('-24h', NOW, 'UTC'), NOW - 24 * HOUR);
    t.equal(parseTime('now-7d', NOW, 'UTC'), NOW - 7 * 24 * HOUR);
    t.equal(parseTime('-90m', NOW, 'UTC'), NOW - 90 * 60_000);
    t.equal(parseTime('+1h', NOW, 'UTC'), NOW + HOUR);
    t.equal(parseTime('-1.5h', NOW, 'UTC'), NOW - 1.5 * HOUR);
    t.equal(parseTime('-2w', NOW, 'UTC'), NOW - 14 * 24 * HOUR);
    t.equal(parseTime('2026-11-28T06:00Z', NOW, 'Europe/Berlin'), Date.UTC(2026, 10, 28, 6));
    t.equal(parseTime('2026-11-28T06:00', NOW, 'Europe/Berlin'), Date.UTC(2026, 10, 28, 5), 'no offset: Berlin time (UTC+1 in November)');
    t.equal(parseTime('2026-07-01', NOW, 'Europe/Berlin'), Date.UTC(2026, 5, 30, 22), 'a date: its midnight in the zone (UTC+2 in July)');
    t.equal(parseTime('2026-11-28T06:00+05:30', NOW, 'UTC'), Date.UTC(2026, 10, 28, 0, 30));
    for (const bad of ['yesterday', '-24', '24h', 'now-', '2026-13-01', '-1y', 'NaN', '']) {
        t.type(parseTime(bad, NOW, 'UTC'), 'object', `'${bad}' is refused`);
    }
    t.type(parseTime(Number.NaN, NOW, 'UTC'), 'object');
    t.type(parseTime(-5, NOW, 'UTC'), 'object', 'no time before 1970');
    t.equal(isoIn(Date.UTC(2026, 6, 1), 'Europe/Berlin'), '2026-07-01T02:00:00.000+02:00');
    t.equal(isoIn(Date.UTC(2026, 6, 1), 'UTC'), '2026-07-01T00:00:00.000Z');
    t.equal(isoIn(Date.UTC(2026, 6, 1), 'America/St_Johns'), '2026-06-30T21:30:00.000-02:30');
    t.equal(isoIn(Date.UTC(2026, 0, 1), 'Asia/Kathmandu'), '2026-01-01T05:45:00.000+05:45');
    t.equal(isoIn(Date.UTC(2026, 0, 1), 'Europe/London'), '2026-01-01T00:00:00.000+00:00');
    // each minute across both changes of 2026 in Berlin, against the time zone data itself
    for (const day of [Date.UTC(2026, 2, 29), Date.UTC(2026, 9, 25)]) {
        for (let ts = day - 3 * HOUR; ts < day + 6 * HOUR; ts += 60_000) {
            const expected = DateTime.fromMillis(ts, { zone: 'Europe/Berlin' }).toISO();
            if (isoIn(ts, 'Europe/Berlin') !== expected) {
                t.fail(`${ts}: ${isoIn(ts, 'Europe/Berlin')} is not ${expected}`);
            }
        }
    }
    t.equal(isoIn(Date.UTC(2026, 9, 25, 0, 59), 'Europe/Berlin'), '2026-10-25T02:59:00.000+02:00', 'the last minute of summer time');
    t.equal(isoIn(Date.UTC(2026, 9, 25, 1), 'Europe/Berlin'), '2026-10-25T02:00:00.000+01:00', 'the hour again, in winter time');
});

t.test('calendar buckets: days of 23 and 25 hours, weeks from Monday, months', async t => {
    const march = bucketStarts(Date.UTC(2026, 2, 28, 23), Date.UTC(2026, 2, 30, 22), 'day', 'Europe/Berlin');
    t.same(march, [Date.UTC(2026, 2, 28, 23), Date.UTC(2026, 2, 29, 22)], 'Sunday 29 March starts at 23:00 UTC the day before, Monday at 22:00 UTC');
    t.equal(march[1] - march[0], 23 * HOUR, 'the day summer time starts has 23 hours');
    const weeks = bucketStarts(Date.UTC(2026, 10, 25), Date.UTC(2026, 11, 3), 'week', 'UTC');
    t.same(weeks, [Date.UTC(2026, 10, 23), Date.UTC(2026, 10, 30)], 'ISO weeks start on Monday');
    const months = bucketStarts(Date.UTC(2026, 0, 15), Date.UTC(2026, 3, 1), 'month', 'UTC');
    t.same(months, [Date.UTC(2026, 0, 1), Date.UTC(2026, 1, 1), Date.UTC(2026, 2, 1)]);
    t.same(bucketStarts(0, 2 * HOUR, 'hour', 'Asia/Kolkata'), [-30 * 60_000, 30 * 60_000, 90 * 60_000], 'an hour of a zone with a half-hour offset');
});

t.test('statistics: change counts a restart from zero and adds up to the total', async t => {
    const stats = new BucketStatistics(0, 3 * HOUR, 'hour', 'UTC', ['change', 'count', 'sum', 'mean', 'min', 'max']);
    stats.add(-10, 100); // the reading before the range
    stats.add(0, 101);
    stats.add(30 * 60_000, 103);
    stats.add(HOUR, 2); // the counter restarted: 2 counted
    stats.add(HOUR + 1, 'text'); // counts, but is no number
    stats.add(2 * HOUR + 5, true);
    stats.add(3 * HOUR, 999); // after the range
    const rows = stats.rows();
    t.same(
        rows.map(r => r.change),
        [3, 2, 1],
        '101 and 103 after 100: 3; 2 after 103 is a restart: 2; true (1) after 2 is a restart again: 1; text changes nothing',
    );
    t.same(
        rows.map(r => r.count),
        [2, 2, 1],
    );
    t.same(
        rows.map(r => [r.min, r.max, r.sum, r.mean]),
        [
            [101, 103, 204, 102],
            [2, 2, 2, 2],
            [1, 1, 1, 1],
        ],
    );
    const empty = new BucketStatistics(0, HOUR, 'hour', 'UTC', ['mean', 'change', 'count']).rows();
    t.same(empty, [{ ts: 0, end: HOUR, mean: null, change: null, count: 0 }], 'a bucket without values says so');
});

t.test('CSV fields: RFC 4180', async t => {
    t.equal(csvField('plain'), 'plain');
    t.equal(csvField('a,b'), '"a,b"');
    t.equal(csvField('say "hi"'), '"say ""hi"""');
    t.equal(csvField('two\nlines'), '"two\nlines"');
    t.equal(csvField(' padded'), '" padded"');
    t.equal(csvField(null), '');
    t.equal(csvField(undefined), '');
    t.equal(csvField(false), 'false');
    t.equal(csvField(1.5), '1.5');
    t.equal(csvField({ a: 1 }), '"{""a"":1}"');
    t.equal(csvRecord(['x', 1, null]), 'x,1,\r\n');
});

t.test('raw rows: merged in time order; two values of one id at one time make two rows', async t => {
    const q = seriesQuery({ ids: 'a,b', tz: 'UTC' }, '', NOW);
    const byId = new Map([
        ['a', [{ ts: 1, val: 1 }, { ts: 3, val: 3 }, { ts: 3, val: 4 }]],
        ['b', [{ ts: 2, val: true }, { ts: 3, val: 'x' }]],
    ]);
    const wide = rawRows(q, byId, 'wide').split('\r\n').filter(Boolean).map(r => r.split(','));
    t.same(
        wide.map(r => [r[0], r[2], r[3]]),
        [
            ['1', '1', ''],
            ['2', '', 'true'],
            ['3', '3', 'x'],
            ['3', '4', ''],
        ],
    );
    const long = rawRows(q, byId, 'long').split('\r\n').filter(Boolean).map(r => r.split(','));
    t.same(
        long.map(r => [r[0], r[1], r[3]]),
        [
            ['a', '1', '1'],
            ['b', '2', 'true'],
            ['a', '3', '3'],
            ['b', '3', 'x'],
            ['a', '3', '4'],
        ],
    );
});

/**
 * The cells a spreadsheet splitting on `sep` sees in `text`: a quote opens a quoted field only at a
 * field's start (as Excel and Calc read it), a line break outside quotes ends a row.
 */
function spreadsheetCells(text: string, sep: string): string[] {
    const cells: string[] = [];
    let cell = '';
    let quoted = false;
    let atStart = true;
    for (let i = 0; i < text.length; i++) {
        const c = text[i];
        if (quoted) {
            if (c === '"' && text[i + 1] === '"') {
                cell += '"';
                i++;
            } else if (c === '"') {
                quoted = false;
            } else {
                cell += c;
            }
        } else if (c === '"' && atStart) {
            quoted = true;
            atStart = false;
        } else if (c === sep || c === '\n' || c === '\r') {
            cells.push(cell);
            cell = '';
            atStart = true;
        } else {
            cell += c;
            atStart = false;
        }
    }
    cells.push(cell);
    return cells;
}

t.test('CSV: no cell a spreadsheet could run, whether it splits on a comma, a semicolon or a tab', async t => {
    const nasty = [
        'a;=1+1',
        'a,=1+1',
        'a\t=1+1',
        'a\n=1+1',
        'a\r\n@SUM(A1)',
        'a; =1+1',
        'a;"=1+1"',
        "a;'=1",
        'x;-2+3;+cmd|x',
        '=1+1;=2',
        ' =1',
        'ok;fine',
    ];
    const values: unknown[] = [...nasty, { note: '=1+1', list: ['a', '@x'] }];
    for (const value of values) {
        const record = csvRecord(['0_userdata.0.x', 1700000000000, value, -5]);
        for (const sep of [',', ';', '\t']) {
            for (const cell of spreadsheetCells(record, sep)) {
                const runs = /^[ "]*[=+\-@\t\r]/.test(cell) && !/^-?\d+(\.\d+)?$/.test(cell);
                t.notOk(runs, `${JSON.stringify(value)} split on ${JSON.stringify(sep)}: cell ${JSON.stringify(cell)}`);
            }
        }
    }
    t.equal(csvField('a;=1+1'), `"a;'=1+1"`, 'the whole cell quoted, the formula after the semicolon neutralised');
    t.equal(csvField('ok;fine'), '"ok;fine"', 'a semicolon is quoted, the text kept');
    t.equal(csvField('a\tb'), '"a\tb"', 'a tab is quoted');
    t.equal(csvField('2026-11-28T06:00:00.000+01:00'), '2026-11-28T06:00:00.000+01:00', 'an iso time stays as it is');
    t.equal(csvField('-5'), "'-5", 'text that starts with a minus is text');
});

t.test('the request: defaults, types, CSV by Accept', async t => {
    const q = seriesQuery({ ids: 'a, b,a,', ack: 'true', q: 'false', count: '10', ignoreNull: '0', tz: 'UTC' }, 'text/csv', NOW);
    t.same(q.ids, ['a', 'b'], 'trimmed, without repeats');
    t.equal(q.end, NOW);
    t.equal(q.start, NOW - 7 * 24 * HOUR, 'a week by default');
    t.same(q.options, { ack: true, q: false, count: 10, ignoreNull: 0 });
    t.equal(q.format, 'csv');
    t.equal(q.layout, 'wide');
    const json = seriesQuery({ ids: ['a'], ack: true, period: 'day', tz: 'Europe/Berlin' }, 'application/json', NOW);
    t.equal(json.format, 'json');
    t.same(json.stats, ['mean'], 'statistics: the mean by default');
    t.equal(json.zone, 'Europe/Berlin');
    t.throws(() => seriesQuery({ ids: ['a'], format: 'xml' }, '', NOW), /format/);
});

t.test('windows of a day cover the range without gaps', async t => {
    const list = windows(5, 5 + 2.5 * 24 * HOUR);
    t.equal(list.length, 3);
    t.equal(list[0][0], 5);
    t.equal(list[1][0], list[0][1]);
    t.equal(list[2][1], 5 + 2.5 * 24 * HOUR);
});

t.test('several ids: a failed id keeps its failure while the others answer; all failed answers as one', async t => {
    const reader = new SeriesReader({ user: 'system.user.admin' } as never, 'history.0', {});
    const slow = new HttpError('TIMEOUT', 'timeout: no answer from history.0 within 20000 ms');
    let running = 0;
    let most = 0;
    const results = await reader.each(['a', 'b', 'c', 'd', 'e', 'f'], async id => {
        running++;
        most = Math.max(most, running);
        await new Promise(r => setTimeout(r, 5));
        running--;
        if (id === 'b') {
            throw slow;
        }
        return [id];
    });
    t.same([...results.keys()], ['a', 'b', 'c', 'd', 'e', 'f'], 'in the order asked');
    t.same(results.get('a'), ['a']);
    t.same(results.get('b'), { error: slow.message, status: 504 });
    t.equal(most, 4, 'four at a time');
    await t.rejects(
        reader.each(['a', 'b'], async () => {
            throw slow;
        }),
        slow,
        'every id failed: the request fails as the single-id route',
    );
    const internal = await reader.each(['a', 'b'], async id => {
        if (id === 'a') {
            throw new Error('secret detail');
        }
        return [];
    });
    t.same(internal.get('a'), { error: 'Internal error', status: 500 }, 'no detail of an unexpected error');
});

t.test('review: times far beyond any date, a zone turning back half an hour, formulas, headers, a gone client', async t => {
    for (const huge of ['1208925819614629174706176', '-2000000000000000w', '99999999999999999', '+100000000w']) {
        t.type(parseTime(huge, NOW, 'UTC'), 'object', `${huge} is refused`);
    }
    t.equal(parseTime('253402300799999', NOW, 'UTC'), 253402300799999, 'the last ms of 9999 is a time');
    const started = Date.now();
    const hours = bucketStarts(Date.UTC(2015, 3, 4), Date.UTC(2015, 3, 6), 'hour', 'Australia/Lord_Howe');
    t.ok(Date.now() - started < 1000, 'the hours of the day Lord Howe turns back half an hour end');
    t.ok(hours.length >= 48 && hours.length <= 50, `${hours.length} hours`);
    t.ok(
        hours.every((h, i) => i === 0 || h > hours[i - 1]),
        'each after the one before',
    );
    t.equal(csvField('=HYPERLINK("http://x","y")'), '"\'=HYPERLINK(""http://x"",""y"")"', 'a formula is text');
    t.equal(csvField('+1'), "'+1");
    t.equal(csvField('-'), "'-");
    t.equal(csvField('@SUM(A1)'), "'@SUM(A1)");
    t.equal(csvField(-5), '-5', 'a negative number stays a number');
    t.equal(isoIn(1e20, 'UTC'), '', 'a stored time no date has: no iso, no failure');
    const header = errorsHeader({ 'a.€': { error: 'Zeitüberschreitung', status: 504 } });
    t.match(header, /^[\x20-\x7e]+$/, 'ASCII only');
    t.same(JSON.parse(header), { 'a.€': { error: 'Zeitüberschreitung', status: 504 } }, 'the same JSON');
    const many = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`id.${i}`.padEnd(40, 'x'), { error: 'timeout', status: 504 }]));
    t.ok(errorsHeader(many).length < 200, 'a long list is summed up');
    const controller = new AbortController();
    let calls = 0;
    const messenger = { user: 'system.user.admin', meta: { timers: {} }, data: { sendTo: () => calls++ } };
    const reader = new SeriesReader(messenger as never, 'history.0', {}, controller.signal);
    controller.abort();
    await t.rejects(reader.rawRange('a', 0, 1000), /went away/);
    await t.rejects(
        reader.each(['a', 'b'], id => reader.rawRange(id, 0, 1000)),
        /went away/,
    );
    t.equal(calls, 0, 'no call to the history instance once the client is gone');
    t.same(windows(5, 5), [[5, 5]], 'start equal to end: one window');
});

t.test('review: two history requests per user at a time, the third 429', async t => {
    const first = claimRequest('system.user.ann');
    const second = claimRequest('system.user.ann');
    t.throws(() => claimRequest('system.user.ann'), /At most 2 history requests/);
    const other = claimRequest('system.user.bob');
    first();
    first();
    const third = claimRequest('system.user.ann');
    t.throws(() => claimRequest('system.user.ann'), /At most 2/, 'a release counts once');
    second();
    third();
    other();
    claimRequest('system.user.ann')();
});

t.test('review: bounds per request, not only per id', async t => {
    const hundred = Array.from({ length: 100 }, (_, i) => `x.${i}`);
    t.throws(() => seriesQuery({ ids: hundred, count: 20_000 }, '', NOW), /at most 10,000 values per id with 100 ids/);
    t.equal(seriesQuery({ ids: hundred }, '', NOW).valuesPerId, 10_000);
    t.equal(seriesQuery({ ids: ['a'] }, '', NOW).valuesPerId, 100_000);
    t.throws(() => seriesQuery({ ids: hundred, format: 'csv', start: '-3000d' }, '', NOW), /id-days per request/);
    t.throws(() => seriesQuery({ ids: hundred.slice(0, 50), period: 'hour', start: '-1000d' }, '', NOW), /buckets per id with 50 ids/);
    t.throws(() => seriesQuery({ ids: ['a'], aggregate: 'percentile', percentile: 150 }, '', NOW), /percentile/);
    t.throws(() => seriesQuery({ ids: ['a'], aggregate: 'quantile', quantile: 2 }, '', NOW), /quantile/);
    t.throws(() => seriesQuery({ ids: ['a'], aggregate: 'integral', integralUnit: 0 }, '', NOW), /integralUnit/);
    t.equal(seriesQuery({ ids: ['a'] }, 'text/csv;q=0, application/json', NOW).format, 'json', 'q=0 refuses CSV');
    t.equal(seriesQuery({ ids: ['a'] }, 'application/json;q=0.9, text/csv', NOW).format, 'csv');
});

t.test('time zones: every spelling becomes the one canonical name, and the spellings remembered are bounded', async t => {
    t.equal(knownZone('Europe/Berlin'), 'Europe/Berlin');
    t.equal(knownZone('EUROPE/berlin'), 'Europe/Berlin');
    t.equal(knownZone('etc/utc'), 'UTC');
    t.equal(knownZone('Mars/Olympus'), undefined);
    t.equal(knownZone(''), undefined);
    const names = new Set<string | undefined>();
    // 2^13 spellings of europe/berlin, upper and lower case
    for (let i = 0; i < 1 << 13; i++) {
        names.add(knownZone([...'europe/berlin'].map((c, k) => ((i >> k) & 1 ? c.toUpperCase() : c)).join('')));
    }
    t.same([...names], ['Europe/Berlin'], 'one name for luxon, whatever the spelling');
    t.ok(zoneSpellingsHeld() <= ZONE_SPELLINGS, `${zoneSpellingsHeld()} spellings remembered`);
    t.equal(seriesQuery({ ids: 'a', tz: 'eUrOpE/bErLiN' }, '', NOW).zone, 'Europe/Berlin', 'the request carries the canonical name');
});

t.test('a raw CSV export holds at most the value budget at a time: 25 ids x 50,000 values of one day', async t => {
    const DAY0 = Date.UTC(2026, 0, 1);
    const STEP = (24 * 3600 * 1000) / 50_000;
    const ids = Array.from({ length: 25 }, (_, i) => `0_userdata.0.dense${i}`);
    const reader = new SeriesReader({ user: 'system.user.admin' } as never, 'history.0', {});
    // values handed to the answer since it last gave a chunk away: what it holds at once, at least
    let sinceChunk = 0;
    let most = 0;
    reader.rawRange = async (id, from, to) => {
        const points = [];
        for (let k = Math.max(0, Math.ceil((from - DAY0) / STEP)); k < 50_000 && DAY0 + k * STEP < to; k++) {
            points.push({ ts: DAY0 + k * STEP, val: ids.indexOf(id) + k / 1000 });
        }
        sinceChunk += points.length;
        most = Math.max(most, sinceChunk);
        return points;
    };
    const q = seriesQuery({ ids, start: DAY0, end: DAY0 + 24 * 3600 * 1000 - 1, format: 'csv', layout: 'long', tz: 'UTC' }, '', NOW);
    const answer = await csvAnswer(reader, q);
    let rows = -1;
    let last = 0;
    let ordered = true;
    for await (const chunk of answer.chunks) {
        sinceChunk = 0;
        for (const line of chunk.split('\r\n')) {
            if (line && !line.startsWith('id,')) {
                rows++;
                const ts = Number(line.split(',')[1]);
                ordered &&= ts >= last;
                last = ts;
            } else if (line) {
                rows++;
            }
        }
    }
    t.equal(rows, 1_250_000, 'every value is written');
    t.ok(ordered, 'in time order across ids');
    t.ok(most <= MAX_VALUES, `at most ${most.toLocaleString('en')} values held at once (budget ${MAX_VALUES.toLocaleString('en')})`);
    t.ok(most <= HELD_VALUES, `within a window's share: ${most.toLocaleString('en')}`);
});

t.test('the reading before a range: the newest value before it, without a whole dense day held', async t => {
    const AT = Date.UTC(2026, 0, 10);
    const STEP = (24 * 3600 * 1000) / 400_000;
    const reader = new SeriesReader({ user: 'system.user.admin' } as never, 'history.0', {});
    let largest = 0;
    let gapUntil = 0;
    reader.rawRange = async (_id, from, to) => {
        const points = [];
        // 400,000 values a day, none in the 3 hours before AT - gapUntil
        for (let ts = Math.ceil(from / STEP) * STEP; ts < to; ts += STEP) {
            if (ts < AT - gapUntil) {
                points.push({ ts, val: ts });
            }
        }
        largest = Math.max(largest, points.length);
        return points;
    };
    const dense = await reader.before('a', AT, 31);
    t.ok(dense && dense.ts < AT && AT - dense.ts <= STEP, 'the newest value before the range');
    t.ok(largest <= HELD_VALUES / 4, `at most ${largest.toLocaleString('en')} values in one answer`);
    gapUntil = 3 * 3600 * 1000;
    largest = 0;
    const afterGap = await reader.before('a', AT, 31);
    t.ok(afterGap && AT - gapUntil - afterGap.ts <= STEP && afterGap.ts < AT - gapUntil, 'the newest value before a gap');
    t.ok(largest <= HELD_VALUES / 4, `at most ${largest.toLocaleString('en')} values in one answer after a gap`);
    gapUntil = 40 * 24 * 3600 * 1000;
    t.equal(await reader.before('a', AT, 31), undefined, 'nothing in the days looked at');
});
