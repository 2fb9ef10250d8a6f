/*
 * Random single reads (`GET /v1/state/<id>`) over 10,000 and 50,000 states against the bare server,
 * in the same run: whether the read cache ever costs more than it saves when the ids do not fit.
 * The states are written through js-controller's own clients, many at a time, not over HTTP.
 */
import type { BenchAdapter, BenchRuntime } from './fixture';
import { load, median, roundFigures, type LoadResult, type RoundFigures } from './http';

/** With a release beside: its req/s, p99 and our req/s as a multiple of its (`oursToRelease`). */
export type RandomReadFigures = { states: number } & RoundFigures & { adapterRssMB: number; release?: string; releaseRps?: number; releaseP99Ms?: number; oursToRelease?: number };

const PREFIX = 'benchrandom.0.s';

/** Objects and states of a batch written side by side (a state needs no object to be stored). */
async function populate(rt: BenchRuntime, from: number, to: number): Promise<void> {
    const { objects, states } = rt.storage;
    const BATCH = 1000;
    for (let start = from; start < to; start += BATCH) {
        const ids = Array.from({ length: Math.min(BATCH, to - start) }, (_, i) => `${PREFIX}${start + i}`);
        await Promise.all([
            ...ids.map(id => objects.setObjectAsync(id, { _id: id, type: 'state', common: { name: id, type: 'number', role: 'value', read: true, write: true }, native: {} })),
            ...ids.map((id, i) => states.setStateAsync(id, { val: start + i, ack: true, from: 'system.adapter.bench.0' })),
        ]);
    }
}

/** Not counted: each target compiles the path and fills its caches first (1,000 ids fill in about 1-2 s). */
const WARMUP_SECONDS = 2;

/** For each size: bare, ours(, release), bare, ours ... `rounds` times, every round printed; medians. */
export async function measureRandomReads(rt: BenchRuntime, bareUrl: string, sizes: number[], seconds: number, rounds: number, release?: BenchAdapter): Promise<RandomReadFigures[]> {
    const figures: RandomReadFigures[] = [];
    let populated = 0;
    for (const count of sizes) {
        const started = Date.now();
        await populate(rt, populated, count);
        if (count > populated) {
            console.log(`bench: random reads: ${count - populated} states written in ${Date.now() - started} ms`);
        }
        populated = Math.max(populated, count);
        const scenario = { name: `random reads over ${count}`, path: '/' };
        const random = { randomIds: { prefix: '/v1/state/' + PREFIX, count } };
        const bare: LoadResult[] = [];
        const ours: LoadResult[] = [];
        const theirs: LoadResult[] = [];
        // the bare server gets the same random paths: the load generator's cost of making them is the same for all
        await load(`${bareUrl}/`, scenario, 1, random);
        await load(`${rt.baseUrl}/`, scenario, WARMUP_SECONDS, random);
        if (release) {
            await load(`${release.baseUrl}/`, scenario, WARMUP_SECONDS, random);
        }
        for (let round = 0; round < rounds; round++) {
            bare.push(await load(`${bareUrl}/`, scenario, seconds, random));
            ours.push(await load(`${rt.baseUrl}/`, scenario, seconds, random));
            if (release) {
                theirs.push(await load(`${release.baseUrl}/`, scenario, seconds, random));
            }
            const line = (label: string, r: LoadResult): string => `${label} ${Math.round(r.rps)} req/s p99 ${r.p99} ms`;
            console.log(`bench: random reads over ${count}, round ${round + 1}: ${[line('bare', bare[round]), line('ours', ours[round]), ...(release ? [line(release.label, theirs[round])] : [])].join(', ')}`);
        }
        const row: RandomReadFigures = { states: count, ...roundFigures(ours, bare), adapterRssMB: Math.round(rt.adapterRss()) };
        if (release) {
            const releaseRps = median(theirs.map(r => r.rps));
            Object.assign(row, {
                release: release.label,
                releaseRps: Math.round(releaseRps),
                releaseP99Ms: median(theirs.map(r => r.p99)),
                oursToRelease: Math.round((row.rps / releaseRps) * 100) / 100,
            });
        }
        figures.push(row);
    }
    return figures;
}
