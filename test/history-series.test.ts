/*
 * `/v1/history` against the real history adapter (iobroker.history from the registry) on the test
 * storage: several ids per request as JSON, aligned, CSV wide and long, calendar statistics across a
 * daylight-saving change, relative times, bounds, rights, and a stopped or stalled history instance.
 */
import t from 'tap';
import { startIobroker, type HttpAnswer, type IobFixture } from './support/iobroker';
import { startHistory, type RealHistory } from './support/real-history';
import { launchChromium } from './support/browser';

const P = '0_userdata.0.hs';
const NUM = `${P}.num`;
const FLAG = `${P}.flag`;
const TEXT = `${P}.text`;
const METER = `${P}.meter`;
const RECENT = `${P}.recent`;
const HIDDEN = `${P}.hidden`;
const ADMIN = { user: 'admin', pass: 'iobroker' };
const VIEWER = { user: 'viewer', pass: 'v' };
const HOUR = 3_600_000;
/** The seeded day: 2026-11-27 in UTC. */
const DAY = Date.UTC(2026, 10, 27);
const TEXTS = ['plain', 'with, comma', 'say "hi"', 'two\nlines'];

let iob: IobFixture;
let history: RealHistory;

const auth = ({ user, pass }: { user: string; pass: string }): Record<string, string> => ({ Authorization: `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}` });
const get = (path: string, who = ADMIN, headers: Record<string, string> = {}): Promise<HttpAnswer> => iob.request(path, { headers: { ...auth(who), ...headers } });
const post = (path: string, body: unknown, who = ADMIN): Promise<HttpAnswer> => iob.request(path, { method: 'POST', body, headers: auth(who) });
const dayQuery = `start=${DAY}&end=${DAY + 24 * HOUR - 1}&removeBorderValues=true`;

async function store(id: string, states: Array<{ ts: number; val: unknown }>): Promise<void> {
    const res = await post('/v1/sendto/history.0', { message: 'storeState', data: { id, state: states.map(s => ({ ...s, ack: true, from: 'system.adapter.test.0', q: 0 })) } });
    if (res.status !== 200) {
        throw new Error(`storeState ${id}: ${res.status} ${res.text}`);
    }
}

/** Hourly readings of a meter in Europe/Berlin from 2026-10-18 22:00 to 2026-10-26 00:00, +0.5 each; restarted from 0 on 2026-10-21 12:00. */
function meterReadings(): Array<{ ts: number; val: number }> {
    const readings: Array<{ ts: number; val: number }> = [];
    // 2026-10-18 22:00 in Berlin (summer time, UTC+2); DST ends 2026-10-25 03:00 → 02:00
    const first = Date.UTC(2026, 9, 18, 20);
    const last = Date.UTC(2026, 9, 25, 23); // 2026-10-26 00:00 in Berlin (winter time, UTC+1)
    let val = 1000;
    for (let ts = first; ts <= last; ts += HOUR) {
        val = ts === Date.UTC(2026, 9, 21, 10) ? 0.5 : val + 0.5;
        readings.push({ ts, val });
    }
    return readings;
}

/** RFC 4180 records of `text` (quoted fields with commas, quotes and line breaks). */
function parseCsv(text: string): string[][] {
    const records: string[][] = [];
    let field = '';
    let record: string[] = [];
    let quoted = false;
    for (let i = 0; i < text.length; i++) {
        const c = text[i];
        if (quoted) {
            if (c === '"' && text[i + 1] === '"') {
                field += '"';
                i++;
            } else if (c === '"') {
                quoted = false;
            } else {
                field += c;
            }
        } else if (c === '"') {
            quoted = true;
        } else if (c === ',') {
            record.push(field);
            field = '';
        } else if (c === '\r' && text[i + 1] === '\n') {
            record.push(field);
            records.push(record);
            record = [];
            field = '';
            i++;
        } else {
            field += c;
        }
    }
    if (field || record.length) {
        throw new Error(`the CSV does not end with CRLF: ${JSON.stringify(text.slice(-40))}`);
    }
    return records;
}

t.before(async () => {
    iob = await startIobroker({ native: { auth: true, dataSource: 'history.0' } });
    await iob.createUser('viewer', { state: { read: true, list: true }, object: { read: true, list: true }, other: { sendto: true } }, 'v');
    await iob.createUser('nosend', { state: { read: true, list: true }, object: { read: true, list: true } }, 'n');
    await iob.createState(NUM, { type: 'number' }, 0);
    await iob.createState(FLAG, { type: 'boolean' }, false);
    await iob.createState(TEXT, { type: 'string' }, '');
    await iob.createState(METER, { type: 'number', unit: 'kWh' }, 0);
    await iob.createState(RECENT, { type: 'number' }, 0);
    await iob.createState(HIDDEN, { type: 'number' }, 0);
    const hidden = await iob.storage.objects.getObjectAsync(HIDDEN);
    await iob.storage.objects.setObjectAsync(HIDDEN, { ...hidden, acl: { owner: 'system.user.admin', ownerGroup: 'system.group.administrator', object: 0x600, state: 0x600 } });
    history = await startHistory(iob.storage);
    await store(NUM, Array.from({ length: 96 }, (_, i) => ({ ts: DAY + i * 15 * 60_000, val: i * 1.5 })));
    await store(FLAG, Array.from({ length: 24 }, (_, i) => ({ ts: DAY + i * HOUR, val: i % 2 === 0 })));
    await store(TEXT, TEXTS.map((val, i) => ({ ts: DAY + i * 6 * HOUR, val })));
    await store(HIDDEN, [{ ts: DAY + HOUR, val: 4242 }]);
    await store(METER, meterReadings());
    const now = Date.now();
    await store(RECENT, [30, 3, 1].map(hours => ({ ts: now - hours * HOUR, val: hours })));
});
t.teardown(async () => {
    await history?.stop();
    await iob?.stop();
});

t.test('three ids over a day in one request, each value with its type', async t => {
    const res = await get(`/v1/history?ids=${NUM},${FLAG},${TEXT}&${dayQuery}`);
    t.equal(res.status, 200, res.text);
    t.same(Object.keys(res.json).sort(), [FLAG, NUM, TEXT].sort());
    t.equal(res.json[NUM].length, 96, 'every value of the number');
    t.same(
        res.json[NUM].slice(0, 3).map((p: { ts: number; val: unknown }) => [p.ts, p.val]),
        [
            [DAY, 0],
            [DAY + 15 * 60_000, 1.5],
            [DAY + 30 * 60_000, 3],
        ],
    );
    t.same(
        res.json[FLAG].map((p: { val: unknown }) => p.val),
        Array.from({ length: 24 }, (_, i) => i % 2 === 0),
        'booleans stay booleans',
    );
    t.same(
        res.json[TEXT].map((p: { val: unknown }) => p.val),
        TEXTS,
        'strings stay strings',
    );
});

t.test('POST with a JSON body: ids as a list, a JSON true is true', async t => {
    const res = await post('/v1/history', { ids: [NUM, FLAG], start: DAY, end: DAY + 2 * HOUR - 1, removeBorderValues: true, ack: true, from: true });
    t.equal(res.status, 200, res.text);
    t.equal(res.json[NUM].length, 8);
    t.equal(res.json[FLAG].length, 2);
    t.ok(
        res.json[NUM].every((p: { ack?: unknown }) => p.ack === true),
        'ack asked for with true comes with every value',
    );
    const without = await post('/v1/history', { ids: [NUM], start: DAY, end: DAY + HOUR - 1, removeBorderValues: true, ack: false });
    t.notOk(
        without.json[NUM].some((p: { ack?: unknown }) => 'ack' in p),
        'false is false',
    );
    const text = await post('/v1/history', { ids: `${NUM},${FLAG}`, start: DAY, end: DAY + HOUR - 1, removeBorderValues: true });
    t.same(Object.keys(text.json).sort(), [FLAG, NUM].sort(), 'or as comma-separated text');
});

t.test('aligned: one time axis, a column per id, null where an id has no value', async t => {
    const res = await get(`/v1/history?ids=${NUM},${TEXT}&start=${DAY}&end=${DAY + 24 * HOUR}&aggregate=max&step=${HOUR}&align=true`);
    t.equal(res.status, 200, res.text);
    t.equal(res.json.ts.length, 24, 'a step per hour');
    t.equal(res.json.ts[0], DAY);
    t.equal(res.json.ts[23], DAY + 23 * HOUR);
    t.same(
        res.json[NUM],
        Array.from({ length: 24 }, (_, h) => (h * 4 + 3) * 1.5),
        'the largest value of each hour',
    );
    t.equal(res.json[TEXT].length, 24, 'every column as long as the axis');
    t.equal(res.json[TEXT].filter((v: unknown) => v === null).length >= 20, true, 'null in the hours without a value');
});

t.test('CSV, wide: a row per time, a column per id, RFC 4180 quoting, types as written', async t => {
    const res = await get(`/v1/history?ids=${NUM},${FLAG},${TEXT}&${dayQuery}`, ADMIN, { Accept: 'text/csv' });
    t.equal(res.status, 200, res.text);
    t.match(res.headers['content-type'], /^text\/csv; charset=utf-8/);
    t.match(res.headers['content-disposition'], /^attachment; filename="history_20261127-20261127\.csv"$/);
    const [head, ...rows] = parseCsv(res.text);
    t.same(head, ['ts', 'iso', NUM, FLAG, TEXT]);
    t.equal(rows.length, 96, 'one row per distinct time (every flag and text time is also a number time)');
    const at = (ts: number): string[] => rows.find(r => Number(r[0]) === ts)!;
    t.same(at(DAY).slice(2), ['0', 'true', 'plain']);
    t.match(at(DAY)[1], /^2026-11-27T\d\d:00:00\.000/, 'iso with the offset of the zone');
    t.same(at(DAY + HOUR).slice(2), ['6', 'false', ''], 'an empty cell where an id has no value');
    t.same(at(DAY + 6 * HOUR).slice(4), ['with, comma']);
    t.same(at(DAY + 12 * HOUR).slice(4), ['say "hi"']);
    t.same(at(DAY + 18 * HOUR).slice(4), ['two\nlines']);
    t.match(res.text, /"say ""hi"""/, 'quotes doubled inside quotes');
    const byFormat = await get(`/v1/history?ids=${NUM}&${dayQuery}&format=csv`);
    t.equal(byFormat.status, 200);
    t.match(byFormat.headers['content-disposition'], new RegExp(`filename="${NUM.replace(/\./g, '\\.')}_20261127`), 'one id names the file');
    t.equal(parseCsv(byFormat.text).length, 97);
});

t.test('CSV, long: a row per value', async t => {
    const res = await get(`/v1/history?ids=${NUM},${FLAG},${TEXT}&${dayQuery}&format=csv&layout=long`);
    t.equal(res.status, 200, res.text);
    const [head, ...rows] = parseCsv(res.text);
    t.same(head, ['id', 'ts', 'iso', 'val']);
    t.equal(rows.length, 96 + 24 + 4);
    t.same(
        rows.filter(r => r[0] === FLAG).map(r => r[3]),
        Array.from({ length: 24 }, (_, i) => String(i % 2 === 0)),
    );
    t.same(
        rows.filter(r => r[0] === TEXT).map(r => r[3]),
        TEXTS,
    );
    const times = rows.map(r => Number(r[1]));
    t.same(times, [...times].sort((a, b) => a - b), 'in time order');
    const aligned = await get(`/v1/history?ids=${NUM}&start=${DAY}&end=${DAY + 24 * HOUR}&aggregate=min&step=${HOUR}&align=true&format=csv&layout=long`);
    const alignedRows = parseCsv(aligned.text);
    t.equal(alignedRows.length, 25, 'aligned in the long form: a row per step with a value');
    t.same(alignedRows[1].slice(0, 2), [NUM, String(DAY)]);
});

t.test('a week of a meter: seven daily changes in Europe/Berlin that add up to its total, across the change from summer time', async t => {
    const week = `ids=${METER}&start=2026-10-19&end=2026-10-26&tz=Europe/Berlin`;
    const res = await get(`/v1/history?${week}&period=day&stat=change,count,min,max`);
    t.equal(res.status, 200, res.text);
    const days = res.json[METER];
    t.equal(days.length, 7);
    t.same(
        days.map((d: { change: number }) => d.change),
        [12, 12, 12, 12, 12, 12, 12.5],
        'each day counted 24 half-kWh steps; Sunday 25 October had 25 hours; the restart on Wednesday is counted from zero',
    );
    t.same(
        days.map((d: { count: number }) => d.count),
        [24, 24, 24, 24, 24, 24, 25],
    );
    t.equal(days[0].ts, Date.UTC(2026, 9, 18, 22), 'Monday 00:00 in Berlin');
    t.equal(days[6].end - days[6].ts, 25 * HOUR, 'the calendar day, not 24 h');
    const total = await get(`/v1/history?${week}&period=week&stat=change`);
    t.equal(total.status, 200, total.text);
    t.same(
        total.json[METER].map((w: { change: number }) => w.change),
        [84.5],
        'the week: the sum of the days',
    );
    const aligned = await get(`/v1/history?${week}&period=day&stat=change&align=true`);
    t.same(aligned.json[METER], [12, 12, 12, 12, 12, 12, 12.5], 'aligned: a column per id');
    t.equal(aligned.json.ts.length, 7);
    const csv = await get(`/v1/history?${week}&period=day&stat=change,max&format=csv`);
    const [head, ...rows] = parseCsv(csv.text);
    t.same(head, ['ts', 'iso', `${METER}:change`, `${METER}:max`]);
    t.same(
        rows.map(r => r[2]),
        ['12', '12', '12', '12', '12', '12', '12.5'],
    );
    t.match(rows[6][1], /^2026-10-25T00:00:00\.000\+02:00$/, 'iso in Berlin time');
    const long = parseCsv((await get(`/v1/history?${week}&period=day&stat=change&format=csv&layout=long`)).text);
    t.same(long[0], ['id', 'ts', 'iso', 'change']);
    t.equal(long.length, 8);
});

t.test('relative times', async t => {
    const last24h = await get(`/v1/history?ids=${RECENT}&start=-24h&end=now&removeBorderValues=true`);
    t.equal(last24h.status, 200, last24h.text);
    t.same(
        last24h.json[RECENT].map((p: { val: number }) => p.val),
        [3, 1],
    );
    const earlier = await get(`/v1/history?ids=${RECENT}&start=-2d&end=now-2h&removeBorderValues=true`);
    t.same(
        earlier.json[RECENT].map((p: { val: number }) => p.val),
        [30, 3],
    );
    const iso = await get(`/v1/history?ids=${NUM}&start=2026-11-27T00:00Z&end=2026-11-27T00:59Z&removeBorderValues=true`);
    t.equal(iso.json[NUM].length, 4, 'ISO 8601');
});

t.test('bounds and bad input: 422 naming the limit or the parameter', async t => {
    const many = Array.from({ length: 101 }, (_, i) => `${P}.x${i}`).join(',');
    const cases: Array<[string, RegExp]> = [
        [`ids=${many}`, /at most 100 ids per request/],
        [`ids=${NUM}&count=100001`, /at most 100,000 values per id/],
        [`ids=${NUM}&start=0&end=${Date.UTC(2030, 0, 1)}`, /at most 3,660 days from start to end/],
        [`ids=${NUM}&start=yesterday`, /'start'.*relative/],
        [`ids=${NUM}&start=${DAY + HOUR}&end=${DAY}`, /must not be after end/],
        [`ids=${NUM}&tz=Mars/Olympus`, /time zone/],
        [`ids=${NUM}&align=true`, /align.*needs step/],
        [`ids=${NUM}&align=true&aggregate=average&step=1&start=0&end=${Date.UTC(2026, 0, 1)}`, /at most 100,000 steps per id/],
        [`ids=${NUM}&stat=change`, /needs period/],
        [`ids=${NUM}&period=year`, /period/],
        [`ids=${NUM}&period=day&stat=median`, /stat/],
        [`ids=${NUM}&period=day&aggregate=average`, /leave aggregate out/],
        [`ids=${NUM}&layout=long`, /is for CSV/],
        [`ids=`, /ids/],
        [`ids=${NUM}&aggregate=sum`, /aggregate/],
    ];
    for (const [query, message] of cases) {
        const res = await get(`/v1/history?${query}`);
        t.equal(res.status, 422, `${query.slice(0, 60)}: ${res.text.slice(0, 200)}`);
        t.match(res.json?.error, message);
        t.notMatch(res.text, /at .*\.js:\d+/, 'no stack');
    }
    const body = await post('/v1/history', { ids: [] });
    t.equal(body.status, 422, 'POST without ids');
    const broken = await iob.request('/v1/history', { method: 'POST', headers: { ...auth(ADMIN), 'Content-Type': 'application/json' }, body: '{"ids": [' });
    t.equal(broken.status, 422, 'a broken JSON body');
    t.match(broken.json.error, /must be a JSON object with ids/);
});

t.test('rights: an id the caller may not read refuses the request without any value', async t => {
    const mixed = await get(`/v1/history?ids=${NUM},${HIDDEN}&${dayQuery}`, VIEWER);
    t.equal(mixed.status, 403, mixed.text);
    t.notMatch(mixed.text, /4242|"val"/, 'no value of either id');
    const csv = await get(`/v1/history?ids=${NUM},${HIDDEN}&${dayQuery}&format=csv`, VIEWER);
    t.equal(csv.status, 403);
    t.notMatch(csv.text, /4242/);
    const posted = await post('/v1/history', { ids: [HIDDEN], start: DAY, end: DAY + 24 * HOUR }, VIEWER);
    t.equal(posted.status, 403);
    const allowed = await get(`/v1/history?ids=${NUM}&${dayQuery}`, VIEWER);
    t.equal(allowed.status, 200, 'the readable id alone is answered');
    t.equal(allowed.json[NUM].length, 96);
    const admin = await get(`/v1/history?ids=${HIDDEN}&${dayQuery}`);
    t.same(
        admin.json[HIDDEN].map((p: { val: number }) => p.val),
        [4242],
        'the administrator reads it',
    );
    const noSendTo = await get(`/v1/history?ids=${NUM}&${dayQuery}`, { user: 'nosend', pass: 'n' });
    t.equal(noSendTo.status, 403, 'without the right to send messages, as the single-id route');
    const anonymous = await iob.request(`/v1/history?ids=${NUM}&${dayQuery}`);
    t.equal(anonymous.status, 401);
    const wrongInstance = await get(`/v1/history?ids=${NUM}&instance=admin.0`, VIEWER);
    t.ok([403, 404, 503].includes(wrongInstance.status), `another instance named: ${wrongInstance.status}`);
});

t.test('review: no wildcard, no id without its object, no instance that keeps no history, no formula in CSV', async t => {
    const wildcard = await get(`/v1/history?ids=*&addId=true&${dayQuery}`, VIEWER);
    t.equal(wildcard.status, 422, wildcard.text);
    t.notMatch(wildcard.text, /4242/);
    t.equal((await get(`/v1/history?ids=${P}.*&${dayQuery}`)).status, 422, 'for the administrator too');
    t.equal((await get(`/v1/getHistory/*?start=${DAY}`, VIEWER)).status, 422, 'the single-id route too');
    const message = await post('/v1/sendto/history.0', { message: 'getHistory', data: { id: '*', options: { start: DAY, addId: true } } }, VIEWER);
    t.equal(message.status, 422, 'and a getHistory message');
    t.notMatch(message.text, /4242/);
    const noObject = await get(`/v1/history?ids=${P}.nothing&${dayQuery}`, VIEWER);
    t.equal(noObject.status, 403, 'an id without an object: the history adapter would still read files of that name');
    t.equal((await get(`/v1/getHistory/${P}.nothing?start=${DAY}`, VIEWER)).status, 403);
    t.equal((await get(`/v1/history?ids=${P}.nothing&${dayQuery}`)).status, 200, 'the administrator may');
    const long = await get(`/v1/history?ids=${P}.${'x'.repeat(600)}`, VIEWER);
    t.equal(long.status, 422, 'an id longer than any state id');
    // a running instance that keeps no history (this adapter's own) gets no getHistory message
    const notHistory = await get(`/v1/history?ids=${NUM}&instance=rest-api.0&${dayQuery}`);
    t.equal(notHistory.status, 422, notHistory.text);
    t.match(notHistory.json.error, /rest-api\.0 keeps no history/);
    const far = await get(`/v1/history?ids=${NUM}&format=csv&start=1208925819614629174706176&end=1208925819614629443141632`);
    t.equal(far.status, 422, 'times beyond the year 9999');
    const lordHowe = await get(`/v1/history?ids=${NUM}&period=hour&tz=Australia/Lord_Howe&start=2015-04-04T00:00&end=2015-04-06T00:00`);
    t.equal(lordHowe.status, 200, 'hours of a zone that turns back half an hour');
    await iob.createState(`${P}.formula`, { type: 'string' }, '');
    await store(`${P}.formula`, [{ ts: DAY, val: '=HYPERLINK("http://example.invalid","open")' }]);
    const csv = await get(`/v1/history?ids=${P}.formula&${dayQuery}&format=csv`);
    t.equal(parseCsv(csv.text)[1][2], '\'=HYPERLINK("http://example.invalid","open")', 'a formula stays text in a spreadsheet');
    const json = await get(`/v1/history?ids=${P}.formula&${dayQuery}`);
    t.equal(json.json[`${P}.formula`][0].val, '=HYPERLINK("http://example.invalid","open")', 'JSON keeps the value as stored');
});

t.test('the chart page draws the seeded values, and shows the refusal of an id the user may not read', async t => {
    const launched = await launchChromium();
    if (!launched.browser) {
        t.plan(0, launched.skip);
        return;
    }
    const browser = launched.browser;
    t.teardown(() => browser.close());
    const context = await browser.newContext({ viewport: { width: 900, height: 700 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', err => errors.push(err.message));
    const range = `start=${DAY}&end=${DAY + 24 * HOUR - 1}`;
    await page.goto(`${iob.baseUrl}/api-doc/chart?ids=${NUM},${FLAG},${TEXT}&${range}`);
    await page.waitForSelector('#message.error', { state: 'attached', timeout: 15_000 });
    t.match(await page.innerText('#message'), /^401/, 'with auth on, the page first says who it needs');
    t.equal(await page.getAttribute('#chart', 'data-points'), '0', 'and draws nothing');
    await page.fill('input[name=user]', VIEWER.user);
    await page.fill('input[name=password]', VIEWER.pass);
    await page.click('button[type=submit]');
    await page.waitForSelector('#chart canvas', { state: 'attached', timeout: 15_000 });
    t.equal(await page.getAttribute('#chart', 'data-points'), String(96 + 24), `every number and boolean drawn, text cannot be (${await page.innerText('#message')})`);
    t.equal(await page.locator('#chart canvas').count(), 1, 'one chart');
    const legend = await page.locator('.u-legend').innerText();
    t.match(legend, NUM);
    t.match(legend, FLAG);
    // as text: this file is compiled without the DOM's types
    const inked = await page.evaluate<number>(`(() => {
        const canvas = document.querySelector('#chart canvas');
        const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
        let count = 0;
        for (let i = 3; i < pixels.length; i += 4) {
            count += pixels[i] > 0 ? 1 : 0;
        }
        return count;
    })()`);
    t.ok(inked > 1000, `lines are drawn (${inked} pixels)`);
    t.equal(await page.inputValue('input[name=ids]'), `${NUM},${FLAG},${TEXT}`, 'the ids from the URL');
    t.equal(await page.inputValue('input[name=start]'), String(DAY), 'the range from the URL');

    await page.fill('input[name=ids]', HIDDEN);
    await page.click('button[type=submit]');
    await page.waitForSelector('#message.error', { state: 'attached', timeout: 15_000 });
    t.match(await page.innerText('#message'), /^403: permissionError/, 'the refusal is shown');
    t.notMatch(await page.content(), /4242/, 'and no value');
    t.equal(await page.getAttribute('#chart', 'data-points'), '0');
    t.match(page.url(), new RegExp(`ids=${HIDDEN.replace(/\./g, '\\.')}&start=${DAY}`), 'the URL follows, so the chart can be bookmarked');
    t.same(errors, [], 'no script error');

    await page.fill('input[name=password]', 'wrong');
    await page.fill('input[name=ids]', NUM);
    await page.click('button[type=submit]');
    await page.waitForFunction('document.getElementById("message").textContent.startsWith("401")', undefined, { timeout: 15_000 });
    t.equal(await page.getAttribute('#chart', 'data-points'), '0', 'a wrong password draws nothing');
    await context.close();
});

t.test('a stalled history instance: 504; a stopped one: 503, as the single-id route', async t => {
    history.proc.kill('SIGSTOP');
    try {
        // at the same time: once stalled longer than its alive state lives, the instance counts as stopped (503)
        const requests = Promise.all([
            get(`/v1/history?ids=${NUM},${FLAG}&${dayQuery}`),
            get(`/v1/getHistory/${NUM}?start=${DAY}&end=${DAY + HOUR}`),
            get(`/v1/history?ids=${TEXT}&${dayQuery}`),
        ]);
        await new Promise(r => setTimeout(r, 500));
        const third = await get(`/v1/history?ids=${NUM}&${dayQuery}`);
        t.equal(third.status, 429, `a third history request of the same user while two wait: ${third.text}`);
        t.equal((await get(`/v1/history?ids=${NUM}&${dayQuery}`, VIEWER)).status === 429, false, 'another user is not held up by the count');
        const [stalled, single] = await requests;
        t.equal(stalled.status, 504, stalled.text);
        t.match(stalled.json.error, /timeout/);
        t.equal(single.status, 504, `the single-id route says the same: ${single.status} ${single.text}`);
    } finally {
        history.proc.kill('SIGCONT');
    }
    await history.stop();
    const stopped = await get(`/v1/history?ids=${NUM},${FLAG}&${dayQuery}`);
    t.equal(stopped.status, 503, stopped.text);
    t.match(stopped.json.error, /not online/);
    const csv = await get(`/v1/history?ids=${NUM}&${dayQuery}&format=csv`);
    t.equal(csv.status, 503, 'CSV too, as JSON');
    t.match(csv.headers['content-type'], /application\/json/);
});
