/*
 * `npm run bench -- --only history`: a long CSV export from the real history adapter. Ten ids with a
 * value every minute for a year, written as the history adapter's own day files, then exported with
 * GET /v1/history as CSV (wide), a month first and then the year, while our adapter's RSS is sampled.
 * The export reads and writes a day at a time, so the year should need no more memory than the month.
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

async function exportCsv(rt: BenchRuntime, days: number, historyRss: () => number): Promise<ExportFigures> {
    const url = `${rt.baseUrl}/v1/history?ids=${IDS.join(',')}&start=${YEAR_START}&end=${YEAR_START + days * DAY - 1}&format=csv&instance=history.0`;
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
        console.log(`bench: ${values.toLocaleString('en')} values of ${IDS.length} ids over ${days} days written as history day files`);
        const history = await startHistory(rt.storage, { storeDir: `${storeDir}/` }, { TZ: 'UTC' });
        try {
            const idleRssMB = Math.round(rt.ours.rss());
            const month = await exportCsv(rt, Math.min(31, days), () => history.rss());
            console.log(`bench: CSV export of a month: ${JSON.stringify(month)}`);
            const year = await exportCsv(rt, days, () => history.rss());
            console.log(`bench: CSV export of ${days} days: ${JSON.stringify(year)}`);
            // again: what the first run grew (V8 sizes its heap to the allocation rate) is there now, a leak would add to it
            const again = await exportCsv(rt, days, () => history.rss());
            console.log(`bench: the same export again: ${JSON.stringify(again)}`);
            const summary = { idleRssMB, month, year, again };
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
