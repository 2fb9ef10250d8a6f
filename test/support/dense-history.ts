/*
 * A dense day for the raw JSON tests, written as the history adapter's own day files: 25 ids with
 * 50,000 values each, and one id with 120,000 (more than one answer of one id may hold), with the
 * real history adapter started on them and the adapter under test asking it.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startIobroker, type HttpAnswer, type IobFixture } from './iobroker';
import { startHistory, type RealHistory } from './real-history';

export const DAY_MS = 24 * 3_600_000;
export const HOUR = 3_600_000;
export const DAY = Date.UTC(2026, 5, 1);
export const IDS = Array.from({ length: 25 }, (_, i) => `0_userdata.0.dense.s${i}`);
export const PER_DAY = 50_000;
export const STEP = DAY_MS / PER_DAY;
/** One id with more values in a day than one answer of one id may hold (100,000). */
export const HUGE = '0_userdata.0.dense.huge';
const HUGE_VALUES = 120_000;
export const AUTH = { Authorization: `Basic ${Buffer.from('admin:iobroker').toString('base64')}` };

const stamps = (count: number): number[] => Array.from({ length: count }, (_, k) => Math.floor(DAY + (k * DAY_MS) / count));
/** The k-th value of the i-th id. */
export const valueOf = (i: number, k: number): number => i + k / 1000;
/** The times of an id's values in [from, to]. */
export const inRange = (from: number, to: number): number[] => stamps(PER_DAY).filter(ts => ts >= from && ts <= to);

function writeDay(storeDir: string): void {
    const folder = join(storeDir, new Date(DAY).toISOString().slice(0, 10).replace(/-/g, ''));
    mkdirSync(folder, { recursive: true });
    IDS.forEach((id, i) => {
        const day = stamps(PER_DAY).map((ts, k) => ({ val: valueOf(i, k), ack: true, ts, q: 0 }));
        writeFileSync(join(folder, `history.${id}.json`), JSON.stringify(day));
    });
    const huge = stamps(HUGE_VALUES).map((ts, k) => ({ val: k, ack: true, ts, q: 0 }));
    writeFileSync(join(folder, `history.${HUGE}.json`), JSON.stringify(huge));
}

export interface DenseHistory {
    iob: IobFixture;
    get(path: string): Promise<HttpAnswer>;
    /** The adapter's RSS in MB. */
    rssMB(): number;
    stop(): Promise<void>;
}

export async function startDenseHistory(): Promise<DenseHistory> {
    const storeDir = mkdtempSync(join(tmpdir(), 'rest-api-history-json-'));
    writeDay(storeDir);
    let iob: IobFixture | undefined;
    let history: RealHistory | undefined;
    const stop = async (): Promise<void> => {
        await history?.stop();
        await iob?.stop();
        rmSync(storeDir, { recursive: true, force: true });
    };
    try {
        iob = await startIobroker({ native: { auth: true, dataSource: 'history.0' } });
        history = await startHistory(iob.storage, { storeDir: `${storeDir}/` }, { TZ: 'UTC' });
    } catch (err) {
        await stop();
        throw err;
    }
    const fixture = iob;
    return {
        iob: fixture,
        get: path => fixture.request(path, { headers: AUTH }),
        rssMB: () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${fixture.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024,
        stop,
    };
}
