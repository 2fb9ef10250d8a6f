/*
 * A large installation: 50,000 states written straight into the stopped DB's jsonl files, then the
 * whole listings (time, size, the adapter's peak RSS during them), a paged walk and a bulk write of
 * 1,000 values. Sequential requests; medians of a few repeats; the peak is the highest of them.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { median } from './http';
import { startRuntime, type BenchRuntime, type OursOptions } from './fixture';

const PREFIX = 'benchlarge.0';

export interface ListingRun {
    ms: number;
    MB: number;
    /** The peak during the first request on a fresh adapter; the highest of all repeats; each repeat's RSS before and peak during. */
    firstPeakRssMB: number;
    peakRssMB: number;
    runs: string[];
}

export interface LargeInstallFigures {
    states: number;
    idleRssMB: number;
    objectsListing: ListingRun;
    statesListing: ListingRun;
    pagedObjects: { ms: number; pages: number; peakRssMB: number };
    bulkWrite1000Ms: number | null;
}

/** Objects and states as a device adapter writes them, appended as jsonl lines `{"k": id, "v": value}`. */
function populate(dataDir: string, count: number): void {
    const objects: string[] = [];
    const states: string[] = [];
    const ts = Date.now();
    for (let i = 0; i < count; i++) {
        const id = `${PREFIX}.device${Math.floor(i / 50)}.power${i % 50}`;
        const common = { name: `Power ${i}`, type: 'number', role: 'value.power', unit: 'W', read: true, write: true, min: 0, max: 10000, desc: 'measured' };
        objects.push(JSON.stringify({ k: id, v: { _id: id, type: 'state', common, native: { address: i, register: 'holding' }, from: 'system.adapter.benchlarge.0', ts } }));
        states.push(JSON.stringify({ k: id, v: { val: i, ack: true, ts, lc: ts, from: 'system.adapter.benchlarge.0', q: 0 } }));
    }
    appendFileSync(join(dataDir, 'objects.jsonl'), objects.join('\n') + '\n');
    appendFileSync(join(dataDir, 'states.jsonl'), states.join('\n') + '\n');
}

async function timedListing(rt: BenchRuntime, path: string, repeats: number): Promise<ListingRun> {
    const times: number[] = [];
    let bytes = 0;
    let peak = 0;
    const runs: string[] = [];
    for (let i = 0; i < repeats; i++) {
        rt.resetPeakRss();
        const before = rt.adapterRss();
        const started = performance.now();
        const res = await fetch(rt.baseUrl + path);
        bytes = (await res.arrayBuffer()).byteLength;
        times.push(performance.now() - started);
        if (res.status !== 200) {
            throw new Error(`${path}: ${res.status}`);
        }
        peak = Math.max(peak, rt.adapterPeakRss());
        runs.push(`${Math.round(before)} -> ${Math.round(rt.adapterPeakRss())}`);
    }
    return { ms: Math.round(median(times)), MB: Math.round(bytes / 1e5) / 10, firstPeakRssMB: Number(/-> (\d+)/.exec(runs[0])?.[1]), peakRssMB: Math.round(peak), runs };
}

async function pagedWalk(rt: BenchRuntime, limit: number): Promise<LargeInstallFigures['pagedObjects']> {
    rt.resetPeakRss();
    const started = performance.now();
    let url: string | undefined = `/v1/objects?filter=${PREFIX}.*&type=state&limit=${limit}`;
    let pages = 0;
    while (url) {
        const res = await fetch(rt.baseUrl + url);
        await res.arrayBuffer();
        pages++;
        url = /^<([^>]+)>; rel="next"$/.exec(res.headers.get('link') ?? '')?.[1];
    }
    return { ms: Math.round(performance.now() - started), pages, peakRssMB: Math.round(rt.adapterPeakRss()) };
}

async function bulkWrite(rt: BenchRuntime, count: number, repeats: number): Promise<number | null> {
    const times: number[] = [];
    for (let round = 0; round < repeats; round++) {
        const body: Record<string, number> = {};
        for (let i = 0; i < count; i++) {
            body[`${PREFIX}.device${Math.floor(i / 50)}.power${i % 50}`] = round * 1000 + i;
        }
        const started = performance.now();
        const res = await fetch(`${rt.baseUrl}/v1/states`, { method: 'PATCH', body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } });
        await res.arrayBuffer();
        if (res.status === 404 || res.status === 405) {
            // an older build measured with --adapter-main, from before bulk writes
            return null;
        }
        if (res.status !== 200) {
            throw new Error(`bulk write: ${res.status}`);
        }
        times.push(performance.now() - started);
    }
    return Math.round(median(times));
}

export async function measureLargeInstall(ours: OursOptions, count = 50_000, repeats = 3): Promise<LargeInstallFigures> {
    const rt = await startRuntime(ours, { checkInterval: 0 }, dataDir => populate(dataDir, count));
    try {
        await delay(2000);
        const idleRssMB = Math.round(rt.adapterRss());
        // the object listing first: its peak is the one the issue measures, on an adapter that did nothing else
        const objectsListing = await timedListing(rt, `/v1/objects?filter=${PREFIX}.*&type=state`, repeats);
        const statesListing = await timedListing(rt, `/v1/states?filter=${PREFIX}.*`, repeats);
        const pagedObjects = await pagedWalk(rt, 1000);
        const bulkWrite1000Ms = await bulkWrite(rt, 1000, repeats);
        return { states: count, idleRssMB, objectsListing, statesListing, pagedObjects, bulkWrite1000Ms };
    } finally {
        await rt.stop();
    }
}
