/*
 * A first `npm start` stopped at any moment, by SIGTERM or by Ctrl-C (SIGINT to the whole process
 * group, so `setup first` and the adapter get it too): the launcher exits with 0, leaves no emptied
 * DB file and no process behind, and the next start finishes the setup and keeps written values.
 * One test file per way of stopping (launcher-first-start*.test.ts): each runs three first starts,
 * about 75 s, and the two run side by side.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { PROJECT_ROOT, setupUnfinished } from '../../scripts/embedded-storage';
import { freePort } from './ports';

interface Launcher {
    proc: ChildProcess;
    output: () => string;
}

// tap's loaders in NODE_OPTIONS add ~300 ms to every Node start: the 200 ms moment needs a bare one
const { NODE_OPTIONS: _loaders, ...bareEnv } = process.env;

function launch(env: Record<string, string>): Launcher {
    let output = '';
    // its own process group, as a terminal gives `npm start`: Ctrl-C reaches every process in it
    const proc = spawn(process.execPath, [join(PROJECT_ROOT, 'build', 'scripts', 'embedded.js')], {
        cwd: PROJECT_ROOT,
        env: { ...bareEnv, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
    });
    proc.stdout!.on('data', d => (output += d));
    proc.stderr!.on('data', d => (output += d));
    return { proc, output: () => output };
}

function groupAlive(launcher: Launcher): boolean {
    try {
        process.kill(-launcher.proc.pid!, 0);
        return true;
    } catch {
        return false;
    }
}

/** Sends the stop and resolves with the exit code (or the killing signal); kills the group after 20 s. */
function stop(launcher: Launcher, how: 'SIGTERM' | 'Ctrl-C'): Promise<number | string | null> {
    const { proc } = launcher;
    if (proc.exitCode !== null || proc.signalCode !== null) {
        return Promise.resolve(proc.exitCode ?? proc.signalCode);
    }
    return new Promise(resolve => {
        const kill = setTimeout(() => process.kill(-proc.pid!, 'SIGKILL'), 20_000);
        proc.once('exit', (code, signal) => {
            clearTimeout(kill);
            resolve(code ?? signal);
        });
        if (how === 'Ctrl-C') {
            process.kill(-proc.pid!, 'SIGINT');
        } else {
            proc.kill('SIGTERM');
        }
    });
}

async function until<T>(what: string, launcher: Launcher, probe: () => Promise<T | undefined>, timeoutMs = 45_000): Promise<T> {
    const end = Date.now() + timeoutMs;
    while (Date.now() < end) {
        if (launcher.proc.exitCode !== null) {
            throw new Error(`launcher exited while waiting for ${what}: ${launcher.output()}`);
        }
        const result = await probe().catch(() => undefined);
        if (result !== undefined) {
            return result;
        }
        await new Promise(r => setTimeout(r, 50));
    }
    throw new Error(`no ${what} within ${timeoutMs} ms: ${launcher.output()}`);
}

async function get200(url: string): Promise<any> {
    const res = await fetch(url);
    const body = await res.text();
    return res.status === 200 ? JSON.parse(body) : undefined;
}

/** Whether the launcher's objects DB holds `id`: one `get` in the Redis protocol its server speaks. */
function hasObject(port: string, id: string): Promise<true | undefined> {
    const key = `cfg.o.${id}`;
    return new Promise((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1', () => socket.write(`*2\r\n$3\r\nget\r\n$${key.length}\r\n${key}\r\n`));
        socket.once('data', reply => {
            socket.destroy();
            resolve(reply.toString().startsWith('$-1') ? undefined : true);
        });
        socket.once('error', reject);
    });
}

function dbFilesKept(t: Test, dataDir: string): void {
    for (const file of ['objects.jsonl', 'states.jsonl']) {
        const path = join(dataDir, file);
        t.ok(!existsSync(path) || statSync(path).size > 0, `${file} is not emptied`);
    }
}

const moments = ['~200 ms after the start', 'setup first has written system.config', 'right after the first 200 and a write'] as const;

/** The three first starts stopped `how`, each in its own data dir and ports. */
export function firstStartsStopped(how: 'SIGTERM' | 'Ctrl-C'): void {
    for (const [index, moment] of moments.entries()) {
        t.test(`${how} ${moment}: exits with 0, the next start sets up and answers`, { timeout: 120_000 }, async t => {
            const dataDir = mkdtempSync(join(tmpdir(), 'rest-api-first-start-'));
            const env = {
                IOBROKER_DATA_DIR: dataDir,
                PORT: String(await freePort()),
                OBJECTS_PORT: String(await freePort()),
                STATES_PORT: String(await freePort()),
            };
            const base = `http://127.0.0.1:${env.PORT}`;
            const launchers: Launcher[] = [];
            t.teardown(async () => {
                await Promise.all(launchers.map(l => stop(l, 'SIGTERM')));
                rmSync(dataDir, { recursive: true, force: true });
            });

            let launcher = launch(env);
            launchers.push(launcher);
            const value = 100 + index;
            if (index === 0) {
                // its first line comes once the signal handlers are in place, before the DB modules load
                const started = Date.now();
                await until('the first line', launcher, async () => (launcher.output() ? true : undefined));
                await new Promise(r => setTimeout(r, started + 200 - Date.now()));
            } else if (index === 1) {
                await until('system.config', launcher, () => hasObject(env.OBJECTS_PORT, 'system.config'));
            } else {
                await until('first 200', launcher, () => get200(`${base}/v1/state/system.adapter.rest-api.0.alive`));
                const common = { name: 'kept', type: 'number', role: 'value', read: true, write: true };
                const created = await fetch(`${base}/v1/object/0_userdata.0.kept`, {
                    method: 'POST',
                    headers: { 'Content-Type': 'application/json' },
                    body: JSON.stringify({ type: 'state', common, native: {} }),
                });
                t.equal(created.status, 200, 'object created');
                await created.arrayBuffer();
                const patched = await fetch(`${base}/v1/state/0_userdata.0.kept`, {
                    method: 'PATCH',
                    headers: { 'Content-Type': 'application/json' },
                    body: JSON.stringify({ val: value }),
                });
                t.equal(patched.status, 200, 'value written');
                await patched.arrayBuffer();
            }
            if (index === 1) {
                t.ok(setupUnfinished(dataDir), 'setup first still runs');
            }
            t.equal(await stop(launcher, how), 0, 'exit code 0');
            t.notMatch(launcher.output(), /cannot start|Error:/);
            t.notOk(groupAlive(launcher), 'neither setup first nor the adapter is left running');
            dbFilesKept(t, dataDir);

            launcher = launch(env);
            launchers.push(launcher);
            t.ok(await until('the seeded example state', launcher, () => get200(`${base}/v1/state/0_userdata.0.example_state`)));
            if (index === 2) {
                t.match(await get200(`${base}/v1/state/0_userdata.0.kept`), { val: value }, 'the value written before the stop');
            }
            await until('a finished setup', launcher, async () => (setupUnfinished(dataDir) ? undefined : true));
            t.equal(await stop(launcher, 'SIGTERM'), 0);
            dbFilesKept(t, dataDir);
        });
    }
}
