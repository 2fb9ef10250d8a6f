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
    stop(): Promise<void>;
}

/** Another build of the adapter (e.g. an older commit's `build/src/main.js`) to compare with this one. */
const ADAPTER_MAIN = process.env.BENCH_ADAPTER_MAIN ?? join(PROJECT_ROOT, 'build', 'src', 'main.js');

/** `prepare` may add to the stopped DB's files in `dataDir` before the storage starts. */
export async function startRuntime(native: Record<string, unknown> = {}, prepare?: (dataDir: string) => void): Promise<BenchRuntime> {
    await ensureSeed();
    const dataDir = mkdtempSync(join(tmpdir(), 'rest-api-bench-'));
    copySeed(dataDir);
    prepare?.(dataDir);
    const storage = await startStorage({ dataDir, objectsPort: await freePort(), statesPort: await freePort() });
    const port = await freePort();
    await writeInstance(storage, { bind: '127.0.0.1', port, ...native });
    const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
    const adapter: ChildProcess = spawn(process.execPath, [...profile, ...nodeProcessParams(), '--require', join(PROJECT_ROOT, 'build', 'test', 'support', 'exit-with-parent.js'), ADAPTER_MAIN], {
        env: { ...process.env, IOBROKER_DATA_DIR: dataDir },
        stdio: 'ignore',
    });
    const baseUrl = `http://127.0.0.1:${port}`;
    const spawned = Date.now();
    for (let i = 0; i < 400; i++) {
        const ok = await fetch(`${baseUrl}/name`).then(r => r.ok, () => false);
        if (ok) {
            break;
        }
        await new Promise(r => setTimeout(r, 10));
    }
    const startMs = Date.now() - spawned;
    return {
        baseUrl,
        host: '127.0.0.1',
        port,
        startMs,
        storage,
        adapterRss: () => statusMB(adapter, 'VmRSS'),
        adapterPeakRss: () => statusMB(adapter, 'VmHWM'),
        // writing 5 to clear_refs resets the peak RSS the kernel keeps for the process
        resetPeakRss: () => writeFileSync(`/proc/${adapter.pid}/clear_refs`, '5'),
        async stop() {
            await stopProcess(adapter);
            await storage.close();
            rmSync(dataDir, { recursive: true, force: true });
        },
    };
}

function statusMB(process: ChildProcess, field: string): number {
    return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${process.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
}

export function percentile(sorted: number[], p: number): number {
    return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : 0;
}
