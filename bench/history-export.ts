/*
 * `npm run bench -- --only history`: a long CSV export from the real history adapter. Ten ids with a
 * value every minute for a year, written as the history adapter's own day files, then exported with
 * GET /v1/history as CSV (wide), a month first and then the year, while our adapter's RSS is sampled.
 * The export reads and writes a window at a time, so the year should need no more memory than the month.
 * Then a dense day: 25 ids with 50,000 values each in one day (1,250,000 values, more than the value
 * budget), exported as CSV long and wide, and asked for as JSON (422).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setInterval as every } from 'node:timers/promises';
import type { BenchRuntime } from './fixture';
import { startHistory } from '../test/support/real-history';

const IDS = Array.from({ length: 10 }, (_, i) => `0_userdata.0.export.s${i}`);
const DAY = 24 * 3600 * 1000;
const YEAR_START = Date.UTC(2025, 0, 1);

/** The history adapter's day file name: `<storeDir><YYYYMMDD>/history.<id>.json`, the day in its time zone (UTC here). */
const dayFolder = (ts: number): string => new Date(ts).toISOString().slice(0, 10).replace(/-/g, '');

function writeDays(storeDir: string, days: number): number {
    let values = 0;
    for (let d = 0; d < days; d++) {
        const start = YEAR_START + d * DAY;
        const folder = join(storeDir, dayFolder(start));
        mkdirSync(folder, { recursive: true });
        IDS.forEach((id, i) => {
            const day = Array.from({ length: 1440 }, (_, m) => ({ val: Math.round((20 + i + 5 * Math.sin((d * 1440 + m) / 300)) * 100) / 100, ack: true, ts: start + m * 60_000, q: 0 }));
            values += day.length;
            writeFileSync(join(folder, `history.${id}.json`), JSON.stringify(day));
        });
    }
    return values;
}

interface ExportFigures {
    days: number;
    rows: number;
    MB: number;
    seconds: number;
    oursPeakRssMB: number;
    historyPeakRssMB: number;
    /** Our peak RSS in each quarter of the export's time: growing memory climbs from quarter to quarter. */
    oursPeakByQuarterMB: number[];
}

const DENSE_IDS = Array.from({ length: 25 }, (_, i) => `0_userdata.0.dense.s${i}`);
const DENSE_DAY = Date.UTC(2026, 5, 1);
const DENSE_VALUES = 50_000;

/** 25 ids with 50,000 values each in one day, as history day files. */
function writeDenseDay(storeDir: string): void {
    const folder = join(storeDir, dayFolder(DENSE_DAY));
    mkdirSync(folder, { recursive: true });
    const step = DAY / DENSE_VALUES;
    DENSE_IDS.forEach((id, i) => {
        const day = Array.from({ length: DENSE_VALUES }, (_, k) => ({ val: i + k / 1000, ack: true, ts: Math.floor(DENSE_DAY + k * step), q: 0 }));
        writeFileSync(join(folder, `history.${id}.json`), JSON.stringify(day));
    });
}

const yearUrl = (rt: BenchRuntime, days: number): string =>
    `${rt.baseUrl}/v1/history?ids=${IDS.join(',')}&start=${YEAR_START}&end=${YEAR_START + days * DAY - 1}&format=csv&instance=history.0`;
const denseUrl = (rt: BenchRuntime, layout: 'wide' | 'long'): string =>
    `${rt.baseUrl}/v1/history?ids=${DENSE_IDS.join(',')}&start=${DENSE_DAY}&end=${DENSE_DAY + DAY - 1}&format=csv&layout=${layout}&instance=history.0`;

async function exportCsv(rt: BenchRuntime, days: number, historyRss: () => number, url = yearUrl(rt, days)): Promise<ExportFigures> {
    let historyPeak = historyRss();
    const samples: Array<[number, number]> = [];
    const started = Date.now();
    const stop = new AbortController();
    const sampling = (async (): Promise<void> => {
        try {
            for await (const _ of every(100, undefined, { signal: stop.signal })) {
                samples.push([Date.now() - started, rt.ours.rss()]);
                historyPeak = Math.max(historyPeak, historyRss());
            }
        } catch {
            // aborted: the export is over
        }
    })();
    let bytes = 0;
    let rows = -1;
    try {
        const res = await fetch(url);
        if (!res.ok || !res.body) {
            throw new Error(`export: ${res.status} ${await res.text()}`);
        }
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
            bytes += chunk.length;
            for (const byte of chunk) {
                rows += byte === 10 ? 1 : 0;
            }
        }
    } finally {
        stop.abort();
        await sampling;
    }
    const ms = Date.now() - started;
    const quarter = (q: number): number => Math.round(Math.max(0, ...samples.filter(([at]) => at >= (q * ms) / 4 && at < ((q + 1) * ms) / 4).map(([, rss]) => rss)));
    return {
        days,
        rows,
        MB: Math.round(bytes / 1e5) / 10,
        seconds: Math.round(ms / 100) / 10,
        oursPeakRssMB: Math.round(Math.max(0, ...samples.map(([, rss]) => rss))),
        historyPeakRssMB: Math.round(historyPeak),
        oursPeakByQuarterMB: [0, 1, 2, 3].map(quarter),
    };
}

export async function measureHistoryExport(rt: BenchRuntime, days = 365): Promise<Record<string, unknown>> {
    const storeDir = mkdtempSync(join(tmpdir(), 'rest-api-bench-history-'));
    try {
        const values = writeDays(storeDir, days);
        writeDenseDay(storeDir);
        console.log(`bench: ${values.toLocaleString('en')} values of ${IDS.length} ids over ${days} days written as history day files`);
        const history = await startHistory(rt.storage, { storeDir: `${storeDir}/` }, { TZ: 'UTC' });
        try {
            const idleRssMB = Math.round(rt.ours.rss());
            // first, so that its peak is over idle and not over what the year's exports left to collect
            const dense = await denseDay(rt, () => history.rss(), idleRssMB);
            const month = await exportCsv(rt, Math.min(31, days), () => history.rss());
            console.log(`bench: CSV export of a month: ${JSON.stringify(month)}`);
            const year = await exportCsv(rt, days, () => history.rss());
            console.log(`bench: CSV export of ${days} days: ${JSON.stringify(year)}`);
            // again: what the first run grew (V8 sizes its heap to the allocation rate) is there now, a leak would add to it
            const again = await exportCsv(rt, days, () => history.rss());
            console.log(`bench: the same export again: ${JSON.stringify(again)}`);
            const summary = { idleRssMB, month, year, again, dense };
            console.log(
                `bench: ours idle ${idleRssMB} MB; peak over the month ${month.oursPeakRssMB} MB, over the year ${year.oursPeakRssMB} MB ` +
                    `(by quarter ${year.oursPeakByQuarterMB.join(', ')}), the year again ${again.oursPeakRssMB} MB (by quarter ${again.oursPeakByQuarterMB.join(', ')})`,
            );
            return summary;
        } finally {
            await history.stop();
        }
    } finally {
        rmSync(storeDir, { recursive: true, force: true });
    }
}

/** The dense day as CSV long and wide (peak RSS over idle), and as JSON (422: more than the value budget). */
async function denseDay(rt: BenchRuntime, historyRss: () => number, idleRssMB: number): Promise<Record<string, unknown>> {
    const figures: Record<string, unknown> = {};
    for (const layout of ['long', 'wide'] as const) {
        const answer = await exportCsv(rt, 1, historyRss, denseUrl(rt, layout));
        figures[layout] = { ...answer, oursOverIdleMB: answer.oursPeakRssMB - idleRssMB };
        console.log(`bench: ${DENSE_IDS.length} ids x ${DENSE_VALUES.toLocaleString('en')} values of one day as CSV ${layout}: ${JSON.stringify(figures[layout])}`);
    }
    const json = await fetch(denseUrl(rt, 'long').replace('&format=csv&layout=long', ''));
    figures.jsonStatus = json.status;
    console.log(`bench: the same day as JSON: ${json.status} ${(await json.text()).slice(0, 160)}`);
    return figures;
}
