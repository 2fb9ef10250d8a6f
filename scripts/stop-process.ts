import type { ChildProcess } from 'node:child_process';

/** Asks a child to end (SIGTERM by default), kills it after `graceMs`, resolves with its exit code. */
export function stopProcess(proc: ChildProcess | null, signal: NodeJS.Signals = 'SIGTERM', graceMs = 5000): Promise<number | null> {
    return new Promise(resolve => {
        if (!proc || proc.exitCode !== null || proc.signalCode !== null) {
            return resolve(proc?.exitCode ?? null);
        }
        const kill = setTimeout(() => proc.kill('SIGKILL'), graceMs);
        proc.once('exit', code => {
            clearTimeout(kill);
            resolve(code);
        });
        proc.kill(signal);
    });
}
