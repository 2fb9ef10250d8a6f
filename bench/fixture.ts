/*
 * The runtime a benchmark measures: embedded js-controller storage and the adapter process, on
 * loopback ports, in a temporary data dir. The same start-up as `npm start` and the tests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
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
    /** The process id (the heap part signals it for its GC figures). */
    pid: number;
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
    /** Node flags instead of the io-package.json's `nodeProcessParams`. */
    nodeFlags?: string[];
    /** A folder: the adapter writes a CPU profile there. */
    profileDir?: string;
}

/** How this build's adapter is started (bench flags `--adapter-main`, `--node-flags`, `--profile`). */
export interface OursOptions {
    /** Another build of the adapter (e.g. an older commit's `build/src/main.js`) to measure instead of this one. */
    main?: string;
    /** Replaces the `nodeProcessParams` of our io-package.json. */
    nodeFlags?: string[];
    profileDir?: string;
}

/** What the bench started and has not stopped yet: the watchdog of bench/run.ts stops what a hung part left behind. */
const leftovers = { processes: new Set<() => Promise<void>>(), storages: new Set<() => Promise<void>>() };
let givingUp = false;

/** Registers `stop` until it has run; returns the stop to call instead (once, later calls do nothing). */
export function tracked(kind: keyof typeof leftovers, stop: () => Promise<unknown>): () => Promise<void> {
    const once = async (): Promise<void> => {
        if (leftovers[kind].delete(once)) {
            await stop();
        }
    };
    leftovers[kind].add(once);
    if (givingUp) {
        // started by a part that went on after the run gave up
        void once();
    }
    return once;
}

/** Stops what is still running, processes before the storages they use; whatever starts later is stopped at once. */
export async function stopLeftovers(): Promise<void> {
    givingUp = true;
    await Promise.all([...leftovers.processes].map(stop => stop()));
    await Promise.all([...leftovers.storages].map(stop => stop()));
}

/**
 * The flags js-controller would start the adapter with: `common.nodeProcessParams` of the io-package.json
 * it runs from (a release's own, none if it names none; ours without `ioPackageFile`).
 */
export function adapterNodeFlags(ioPackageFile?: string): string[] {
    if (ioPackageFile) {
        return (JSON.parse(readFileSync(ioPackageFile, 'utf8')).common?.nodeProcessParams as string[] | undefined) ?? [];
    }
    return nodeProcessParams();
}

/** Node flags that have a process write a CPU profile into `dir` when it exits (none without a dir); `name` replaces Node's file name. */
export function cpuProfileFlags(dir: string | undefined, name?: string): string[] {
    return dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`, ...(name ? [`--cpu-prof-name=${name}`] : [])] : [];
}

async function spawnAdapter(storage: Storage, { label, main, instance, native = {}, ioPackageFile, cwd, nodeFlags = adapterNodeFlags(ioPackageFile), profileDir }: AdapterOptions): Promise<BenchAdapter> {
    const port = await freePort();
    await writeInstance(storage, { bind: '127.0.0.1', port, ...native }, { instance, ioPackageFile });
    const profile = cpuProfileFlags(profileDir);
    const args = [...profile, ...nodeFlags, '--require', join(PROJECT_ROOT, 'build', 'test', 'support', 'exit-with-parent.js'), main, ...(instance ? ['--instance', String(instance)] : [])];
    // js-controller reads the data dir (iobroker.json) only from IOBROKER_DATA_DIR: the adapter gets that and nothing else of
    // the bench's environment, so each adapter finds its own storage and the caller's shell (NODE_OPTIONS...) does not reach it
    const child: ChildProcess = spawn(process.execPath, args, { env: { IOBROKER_DATA_DIR: storage.dataDir }, stdio: 'ignore', cwd });
    const stop = tracked('processes', () => stopProcess(child));
    const baseUrl = `http://127.0.0.1:${port}`;
    const spawned = Date.now();
    try {
        for (let i = 0; ; i++) {
            const ok = await fetch(`${baseUrl}/name`).then(r => r.ok, () => false);
            if (ok) {
                break;
            }
            if (i === 1500) {
                throw new Error(`${label} did not answer /name`);
            }
            if (child.exitCode !== null || child.signalCode !== null) {
                throw new Error(`${label} exited with ${child.exitCode ?? child.signalCode} before answering`);
            }
            await delay(10);
        }
    } catch (err) {
        // nothing ends the process for us: a child left running would keep the bench alive
        await stop();
        throw err;
    }
    return {
        label,
        baseUrl,
        host: '127.0.0.1',
        port,
        pid: child.pid!,
        nodeFlags,
        startMs: Date.now() - spawned,
        rss: () => statusMB(child, 'VmRSS'),
        cpuMs: () => cpuMs(child),
        peakRss: () => statusMB(child, 'VmHWM'),
        // writing 5 to clear_refs resets the peak RSS the kernel keeps for the process
        resetPeakRss: () => writeFileSync(`/proc/${child.pid}/clear_refs`, '5'),
        stop,
    };
}

/** `prepare` may add to the stopped DB's files in `dataDir` before the storage starts. */
export async function startRuntime(oursOptions: OursOptions, native: Record<string, unknown> = {}, prepare?: (dataDir: string) => void): Promise<BenchRuntime> {
    await ensureSeed();
    const dataDir = mkdtempSync(join(tmpdir(), 'rest-api-bench-'));
    copySeed(dataDir);
    prepare?.(dataDir);
    const storage = await startStorage({ dataDir, objectsPort: await freePort(), statesPort: await freePort() });
    const closeStorage = tracked('storages', async () => {
        await storage.close();
        rmSync(dataDir, { recursive: true, force: true });
    });
    let ours: BenchAdapter;
    try {
        const { main = join(PROJECT_ROOT, 'build', 'src', 'main.js'), nodeFlags, profileDir } = oursOptions;
        ours = await spawnAdapter(storage, { label: 'ours', main, instance: 0, native, nodeFlags, profileDir });
    } catch (err) {
        await closeStorage();
        throw err;
    }
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
            await closeStorage();
        },
    };
}

/** utime + stime of /proc/<pid>/stat (fields 14 and 15, after the command name), in clock ticks of 10 ms. */
function cpuMs(process: ChildProcess): number {
    const fields = readFileSync(`/proc/${process.pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** A Linux /proc status field of `process` (VmRSS, VmHWM), in MB. */
export function statusMB(process: ChildProcess, field: string): number {
    return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${process.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
}

export function percentile(sorted: number[], p: number): number {
    return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : 0;
}

/** What `work` gives, or undefined once `ms` have passed; the timer is cleared either way. */
export async function within<T>(work: Promise<T>, ms: number): Promise<T | undefined> {
    const timer = new AbortController();
    try {
        return await Promise.race([work, delay(ms, undefined, { signal: timer.signal })]);
    } finally {
        timer.abort();
    }
}
