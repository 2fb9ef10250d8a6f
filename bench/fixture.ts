/*
 * The runtime a benchmark measures: embedded js-controller storage and the adapter process, on
 * loopback ports, in a temporary data dir. The same start-up as `npm start` and the tests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodeProcessParams, PROJECT_ROOT, startStorage, writeInstance, type Storage } from '../scripts/embedded-storage';
import { stopProcess } from '../scripts/stop-process';
import { freePort } from '../test/support/ports';
import { copySeed, ensureSeed } from '../test/support/seed';

/** One adapter process on the bench's storage: this build, or a published release to compare with. */
export interface BenchAdapter {
    label: string;
    baseUrl: string;
    host: string;
    port: number;
    /** The Node flags it was started with (those of the io-package.json it runs from). */
    nodeFlags: string[];
    /** Process spawn to its first answer, in ms. */
    startMs: number;
    rss(): number;
    /** CPU time (user and system, all threads) in ms since the process started, from /proc. */
    cpuMs(): number;
    /** Peak RSS in MB since the last `resetPeakRss()` (Linux VmHWM). */
    peakRss(): number;
    resetPeakRss(): void;
    stop(): Promise<void>;
}

export interface BenchRuntime {
    baseUrl: string;
    host: string;
    port: number;
    storage: Storage;
    /** Adapter process spawn to its first answer, in ms. */
    startMs: number;
    adapterRss(): number;
    /** The adapter's peak RSS in MB since the last `resetPeakRss()` (Linux VmHWM). */
    adapterPeakRss(): number;
    resetPeakRss(): void;
    /** This build's adapter. */
    ours: BenchAdapter;
    /** Another adapter on the same storage, as instance `instance` (e.g. the published 4.0.2). */
    startAdapter(options: AdapterOptions): Promise<BenchAdapter>;
    stop(): Promise<void>;
}

export interface AdapterOptions {
    label: string;
    main: string;
    instance: number;
    native?: Record<string, unknown>;
    /** The release's io-package.json, for its instance object. */
    ioPackageFile?: string;
    /** Working directory (a release finds its own js-controller from there). */
    cwd?: string;
}

/** Another build of the adapter (e.g. an older commit's `build/src/main.js`) to compare with this one. */
const ADAPTER_MAIN = process.env.BENCH_ADAPTER_MAIN ?? join(PROJECT_ROOT, 'build', 'src', 'main.js');

/**
 * The flags js-controller would start the adapter with: `common.nodeProcessParams` of the io-package.json
 * it runs from (a release's own, none if it names none). `BENCH_NODE_FLAGS` (space-separated) replaces ours only.
 */
export function adapterNodeFlags(ioPackageFile?: string): string[] {
    if (ioPackageFile) {
        return (JSON.parse(readFileSync(ioPackageFile, 'utf8')).common?.nodeProcessParams as string[] | undefined) ?? [];
    }
    const override = process.env.BENCH_NODE_FLAGS;
    return override !== undefined ? override.split(/\s+/).filter(Boolean) : nodeProcessParams();
}

async function spawnAdapter(storage: Storage, { label, main, instance, native = {}, ioPackageFile, cwd }: AdapterOptions): Promise<BenchAdapter> {
    const port = await freePort();
    await writeInstance(storage, { bind: '127.0.0.1', port, ...native }, { instance, ioPackageFile });
    const profile = process.env.BENCH_PROFILE && !ioPackageFile ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
    const nodeFlags = adapterNodeFlags(ioPackageFile);
    const args = [...profile, ...nodeFlags, '--require', join(PROJECT_ROOT, 'build', 'test', 'support', 'exit-with-parent.js'), main, ...(instance ? ['--instance', String(instance)] : [])];
    const child: ChildProcess = spawn(process.execPath, args, { env: { ...process.env, IOBROKER_DATA_DIR: storage.dataDir }, stdio: 'ignore', cwd });
    const baseUrl = `http://127.0.0.1:${port}`;
    const spawned = Date.now();
    for (let i = 0; ; i++) {
        const ok = await fetch(`${baseUrl}/name`).then(r => r.ok, () => false);
        if (ok) {
            break;
        }
        if (i === 1500) {
            throw new Error(`${label} did not answer /name`);
        }
        if (child.exitCode !== null) {
            throw new Error(`${label} exited with ${child.exitCode} before answering`);
        }
        await new Promise(r => setTimeout(r, 10));
    }
    return {
        label,
        baseUrl,
        host: '127.0.0.1',
        port,
        nodeFlags,
        startMs: Date.now() - spawned,
        rss: () => statusMB(child, 'VmRSS'),
        cpuMs: () => cpuMs(child),
        peakRss: () => statusMB(child, 'VmHWM'),
        // writing 5 to clear_refs resets the peak RSS the kernel keeps for the process
        resetPeakRss: () => writeFileSync(`/proc/${child.pid}/clear_refs`, '5'),
        stop: async () => {
            await stopProcess(child);
        },
    };
}

/** `prepare` may add to the stopped DB's files in `dataDir` before the storage starts. */
export async function startRuntime(native: Record<string, unknown> = {}, prepare?: (dataDir: string) => void): Promise<BenchRuntime> {
    await ensureSeed();
    const dataDir = mkdtempSync(join(tmpdir(), 'rest-api-bench-'));
    copySeed(dataDir);
    prepare?.(dataDir);
    const storage = await startStorage({ dataDir, objectsPort: await freePort(), statesPort: await freePort() });
    const ours = await spawnAdapter(storage, { label: 'ours', main: ADAPTER_MAIN, instance: 0, native });
    const others: BenchAdapter[] = [];
    return {
        baseUrl: ours.baseUrl,
        host: ours.host,
        port: ours.port,
        startMs: ours.startMs,
        storage,
        ours,
        adapterRss: ours.rss,
        adapterPeakRss: ours.peakRss,
        resetPeakRss: ours.resetPeakRss,
        async startAdapter(options) {
            const adapter = await spawnAdapter(storage, options);
            others.push(adapter);
            return adapter;
        },
        async stop() {
            await Promise.all([ours, ...others].map(a => a.stop()));
            await storage.close();
            rmSync(dataDir, { recursive: true, force: true });
        },
    };
}

/** utime + stime of /proc/<pid>/stat (fields 14 and 15, after the command name), in clock ticks of 10 ms. */
function cpuMs(process: ChildProcess): number {
    const fields = readFileSync(`/proc/${process.pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
}

function statusMB(process: ChildProcess, field: string): number {
    return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${process.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
}

export function percentile(sorted: number[], p: number): number {
    return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : 0;
}
