/*
 * The real ioBroker history adapter (iobroker.history from the registry, in the dev workspace),
 * started on a test's storage as js-controller starts it: its instance object from its own
 * io-package.json, then `node build/main.js` with the data dir, where it stores its files.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { connectStatesClient, type Storage } from '../../scripts/embedded-storage';
import { stopProcess } from '../../scripts/stop-process';
import { writeRegistryInstance } from './real-admin';

const HISTORY_DIR = dirname(require.resolve('iobroker.history/package.json'));

export interface RealHistory {
    proc: ChildProcess;
    /** Its RSS in MB (Linux). */
    rss(): number;
    output(): string;
    stop(): Promise<void>;
}

async function alive(storage: Storage): Promise<boolean> {
    return (await storage.states.getStateAsync('system.adapter.history.0.alive'))?.val === true;
}

/**
 * Resolves once history.0 answers a message. Its alive state is set while its message box subscription,
 * on another connection, may still be under way, and a message sent in between is lost.
 */
async function untilAnswering(storage: Storage, deadline: number, output: () => string): Promise<void> {
    const from = 'system.adapter.history-probe.0';
    let answered = false;
    const client = await connectStatesClient(storage, (channel, message) => {
        answered ||= channel === `messagebox.${from}` && (message as { command?: string } | null)?.command === 'features';
    });
    try {
        await client.subscribeMessage(from);
        for (let id = 1; !answered; id++) {
            if (Date.now() > deadline) {
                throw new Error(`history.0 is alive but answers no message:\n${output()}`);
            }
            await client.pushMessage('system.adapter.history.0', { command: 'features', message: null, from, callback: { message: null, id, ack: false, time: Date.now() } });
            for (let waited = 0; !answered && waited < 1000; waited += 50) {
                await new Promise(r => setTimeout(r, 50));
            }
        }
    } finally {
        await client.destroy();
    }
}

/** history.0 with its defaults (`native` over them), started, alive and answering messages; `env` adds to its environment (e.g. TZ). */
export async function startHistory(storage: Storage, native: Record<string, unknown> = {}, env: Record<string, string> = {}): Promise<RealHistory> {
    await writeRegistryInstance(storage, 'history', native);
    // a history killed before left its alive flag, and the wait below would pass at once
    await storage.states.setStateAsync('system.adapter.history.0.alive', { val: false, ack: true });
    const proc = spawn(process.execPath, ['--require', join(__dirname, 'exit-with-parent.js'), join(HISTORY_DIR, 'build', 'main.js')], {
        cwd: HISTORY_DIR,
        env: { ...process.env, ...env, IOBROKER_DATA_DIR: storage.dataDir },
        stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    proc.stdout!.on('data', d => (output += d));
    proc.stderr!.on('data', d => (output += d));
    const deadline = Date.now() + 30_000;
    while (!(await alive(storage))) {
        if (Date.now() > deadline || proc.exitCode !== null) {
            proc.kill('SIGKILL');
            throw new Error(`history.0 did not start:\n${output}`);
        }
        await new Promise(r => setTimeout(r, 100));
    }
    await untilAnswering(storage, deadline, () => output);
    return {
        proc,
        rss: () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${proc.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024,
        output: () => output,
        stop: async () => {
            await stopProcess(proc);
        },
    };
}
