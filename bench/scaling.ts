/*
 * `npm run bench -- --only scaling [--compare version]`: the cost of one write's fan-out as the work grows.
 * 1,000 / 10,000 / 50,000 pending polls and 1,000 / 10,000 event streams, each size in rounds interleaved
 * between ours, the published release (polls only: it has no SSE) and the bare server, who goes first
 * rotating per round. Per size: medians of the rounds' write-to-answer p50 / p99, RSS per held connection,
 * and the issue's targets (p99 ≤ 1.1× bare, ahead of the release in every round from 10,000 polls on,
 * RSS per held poll ≤ the release's). A size this machine's open-file limit cannot hold is skipped, saying so.
 */
import { readFileSync } from 'node:fs';
import { bareFanOut, pollFanOut } from './events';
import { startRelease } from './compare';
import type { BenchAdapter, BenchRuntime } from './fixture';
import { median, startBare } from './http';
import { bareSseFanOut, sseFanOut } from './sse';
import { ratio, type TargetRow } from './targets';

export interface ScalingOptions {
    polls: number[];
    streams: number[];
    rounds: number;
    version: string;
    releaseCache: string;
    /** `--profile`: the bare server writes its CPU profile there too, beside ours. */
    profileDir?: string;
}

/** One target's figures in one round. */
export interface Sample {
    p50Ms: number;
    p99Ms: number;
    lost: number;
    /** RSS added per held connection, in KB. */
    kbPerConnection: number;
}

export interface SizeResult {
    kind: 'polls' | 'streams';
    size: number;
    /** Per round, per target label. */
    rounds: Record<string, Sample>[];
}

/** Connections a target must hold beyond the size: the bench's own, js-controller's, files. */
const FD_HEADROOM = 1000;

/** The soft limit of open files of this process (the adapters and the bare server inherit it). */
export function openFileLimit(limits = readFileSync('/proc/self/limits', 'utf8')): number {
    const match = /^Max open files\s+(\d+|unlimited)/m.exec(limits);
    return !match || match[1] === 'unlimited' ? Infinity : Number(match[1]);
}

/** The targets of `round`, the first one rotating: whatever a round leaves behind hits each target alike. */
export function rotated<T>(targets: T[], round: number): T[] {
    const start = round % targets.length;
    return [...targets.slice(start), ...targets.slice(0, start)];
}

/** Optional fields: the poll fan-outs answer a plain record of figures. */
function sample(figures: { p50Ms?: number; p99Ms?: number; lost?: number; addedRssMB?: number }, connections: number): Sample {
    return { p50Ms: figures.p50Ms ?? 0, p99Ms: figures.p99Ms ?? 0, lost: figures.lost ?? 0, kbPerConnection: Math.round(((figures.addedRssMB ?? 0) * 1024 * 10) / connections) / 10 };
}

interface Target {
    label: string;
    run(size: number, tag: string): Promise<Sample>;
}

type Bare = Awaited<ReturnType<typeof startBare>>;

/** The bare server is one process for all rounds, warmed like the adapters (a new one per round ran cold code). */
function pollTargets(rt: BenchRuntime, adapters: BenchAdapter[], bare: Bare): Target[] {
    return [
        ...adapters.map(adapter => ({
            label: adapter.label,
            // a state and sessions of their own per round and target: earlier sessions hear nothing of this write
            run: async (size: number, tag: string) => sample(await pollFanOut(adapter, rt.storage, size, `0_userdata.0.scale_${tag}`, `${tag}_`), size),
        })),
        { label: 'bare', run: async (size: number, tag: string) => sample(await bareFanOut(size, rt.storage, `0_userdata.0.scale_${tag}`, bare), size) },
    ];
}

function streamTargets(rt: BenchRuntime, bare: Bare): Target[] {
    let frameBytes = 200;
    return [
        {
            label: 'ours',
            run: async (size: number, tag: string) => {
                const figures = await sseFanOut(rt.ours, rt.storage, size, `0_userdata.0.scale_${tag}`);
                frameBytes = figures.frameBytes || frameBytes;
                return sample(figures, size);
            },
        },
        {
            label: 'bare',
            run: async (size: number, tag: string) => sample(await bareSseFanOut(bare.baseUrl, rt.storage, size, frameBytes, `0_userdata.0.scale_${tag}`, () => bare.rss()), size),
        },
    ];
}

async function measureSize(kind: SizeResult['kind'], size: number, targets: Target[], rounds: number): Promise<SizeResult> {
    // not counted: one full-size fan-out per target, so every round runs warm code
    for (const target of targets) {
        await target.run(size, `${kind}_${size}_warm_${target.label.replace(/\W/g, '_')}`);
    }
    const result: SizeResult = { kind, size, rounds: [] };
    for (let round = 0; round < rounds; round++) {
        const row: Record<string, Sample> = {};
        for (const target of rotated(targets, round)) {
            row[target.label] = await target.run(size, `${kind}_${size}_${round}_${target.label.replace(/\W/g, '_')}`);
        }
        result.rounds.push(row);
        console.log(`bench: ${size} ${kind}, round ${round + 1}: ${targets.map(t => `${t.label} p50 ${row[t.label].p50Ms} / p99 ${row[t.label].p99Ms} ms, ${row[t.label].kbPerConnection} KB each${row[t.label].lost ? `, ${row[t.label].lost} lost` : ''}`).join('; ')}`);
    }
    return result;
}

export interface ScalingRow {
    kind: string;
    size: number;
    'ours p50/p99 ms': string;
    'bare p50/p99 ms': string;
    'release p50/p99 ms': string;
    'p99 ours/bare': number | string;
    'p99 ours/release': number | string;
    'rounds ahead of release': string;
    'KB per connection ours/bare/release': string;
}

const of = (r: SizeResult, label: string, field: keyof Sample): number | undefined => (r.rounds[0]?.[label] ? median(r.rounds.map(round => round[label][field])) : undefined);

export function scalingRow(r: SizeResult, release?: string): ScalingRow {
    const pair = (label?: string): string => (label && r.rounds[0]?.[label] ? `${of(r, label, 'p50Ms')} / ${of(r, label, 'p99Ms')}` : '–');
    const ahead = release && r.rounds[0]?.[release] ? `${r.rounds.filter(round => round.ours.p99Ms < round[release].p99Ms).length} of ${r.rounds.length}` : '–';
    const kb = [of(r, 'ours', 'kbPerConnection'), of(r, 'bare', 'kbPerConnection'), release ? of(r, release, 'kbPerConnection') : undefined].map(v => v ?? '–').join(' / ');
    return {
        kind: r.kind,
        size: r.size,
        'ours p50/p99 ms': pair('ours'),
        'bare p50/p99 ms': pair('bare'),
        'release p50/p99 ms': pair(release),
        'p99 ours/bare': ratio(of(r, 'ours', 'p99Ms'), of(r, 'bare', 'p99Ms')) ?? '–',
        'p99 ours/release': (release && ratio(of(r, 'ours', 'p99Ms'), of(r, release, 'p99Ms'))) ?? '–',
        'rounds ahead of release': ahead,
        'KB per connection ours/bare/release': kb,
    };
}

/** The issue's targets per size; lost answers on our side fail whatever the ratio. */
export function scalingTargets(results: SizeResult[], release?: string): TargetRow[] {
    const rows: TargetRow[] = [];
    const verdict = (met: boolean | undefined, lost: number): TargetRow['result'] => (met === undefined ? 'n/a' : met && !lost ? 'pass' : 'FAIL');
    for (const r of results) {
        const lost = r.rounds.reduce((n, round) => n + round.ours.lost, 0);
        const toBare = ratio(of(r, 'ours', 'p99Ms'), of(r, 'bare', 'p99Ms'));
        rows.push({ target: `${r.size} ${r.kind}: p99 ours/bare`, value: toBare ?? '–', goal: '≤ 1.1', result: verdict(toBare === undefined ? undefined : toBare <= 1.1, lost) });
        if (r.kind !== 'polls') {
            continue;
        }
        const withRelease = release && r.rounds[0]?.[release] ? release : undefined;
        if (r.size >= 10_000) {
            const ahead = withRelease ? r.rounds.filter(round => round.ours.p99Ms < round[withRelease].p99Ms).length : undefined;
            rows.push({ target: `${r.size} polls: p99 ahead of ${release ?? 'release'}`, value: ahead === undefined ? '–' : `${ahead} of ${r.rounds.length}`, goal: 'every round', result: verdict(ahead === undefined ? undefined : ahead === r.rounds.length, lost) });
        }
        const kb = withRelease ? ratio(of(r, 'ours', 'kbPerConnection'), of(r, withRelease, 'kbPerConnection')) : undefined;
        rows.push({ target: `${r.size} polls: RSS per held poll ours/${release ?? 'release'}`, value: kb ?? '–', goal: '≤ 1', result: verdict(kb === undefined ? undefined : kb <= 1, lost) });
    }
    return rows;
}

export async function measureScaling(rt: BenchRuntime, options: ScalingOptions): Promise<Record<string, unknown>> {
    const started = Date.now();
    const { release, skip } = await startRelease(rt, options.version, options.releaseCache);
    const limit = openFileLimit();
    const skipped: string[] = [];
    const fits = (size: number, kind: string): boolean => {
        if (size + FD_HEADROOM <= limit) {
            return true;
        }
        skipped.push(`${size} ${kind}: each process may open ${limit} files (ulimit -n), a target holding ${size} connections needs about ${size + FD_HEADROOM}`);
        console.log(`bench: skipped ${skipped.at(-1)}`);
        return false;
    };
    const results: SizeResult[] = [];
    const bare = await startBare(rt.storage, options.profileDir);
    try {
        const polls = pollTargets(rt, [rt.ours, ...(release ? [release] : [])], bare);
        for (const size of options.polls.filter(n => fits(n, 'polls'))) {
            results.push(await measureSize('polls', size, polls, options.rounds));
        }
        const streams = streamTargets(rt, bare);
        for (const size of options.streams.filter(n => fits(n, 'streams'))) {
            results.push(await measureSize('streams', size, streams, options.rounds));
        }
    } finally {
        bare.stop();
    }
    const table = results.map(r => scalingRow(r, release?.label));
    console.table(table);
    const targets = scalingTargets(results, release?.label);
    console.log('targets');
    console.table(targets);
    const seconds = Math.round((Date.now() - started) / 1000);
    console.log(`bench: scaling run took ${Math.floor(seconds / 60)} min ${seconds % 60} s`);
    return { release: release?.label ?? null, skippedRelease: skip, skipped, results, table, targets, seconds };
}
