/*
 * `npm start` as a user runs it: the launcher with its own data dir and ports, a fresh start,
 * Ctrl-C, a restart that keeps written values, a config change through the API, two side by side.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { PROJECT_ROOT } from '../scripts/embedded-storage';
import { stopProcess } from '../scripts/stop-process';
import { freePort } from './support/ports';
import { copySeed, ensureSeed } from './support/seed';

interface Launcher {
    proc: ChildProcess;
    output: () => string;
}

function launch(env: Record<string, string>): Launcher {
    let output = '';
    const proc = spawn(process.execPath, [join(PROJECT_ROOT, 'build', 'scripts', 'embedded.js')], {
        cwd: PROJECT_ROOT,
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
    });
    proc.stdout!.on('data', d => (output += d));
    proc.stderr!.on('data', d => (output += d));
    return { proc, output: () => output };
}

async function waitFor200(url: string, launcher: Launcher, timeoutMs = 60_000): Promise<Response> {
    const end = Date.now() + timeoutMs;
    while (Date.now() < end) {
        if (launcher.proc.exitCode !== null) {
            throw new Error(`launcher exited: ${launcher.output()}`);
        }
        try {
            const res = await fetch(url);
            if (res.status === 200) {
                return res;
            }
            await res.arrayBuffer();
        } catch {
            // not listening yet
        }
        await new Promise(r => setTimeout(r, 100));
    }
    throw new Error(`${url} did not answer 200 within ${timeoutMs} ms: ${launcher.output()}`);
}

function stop(launcher: Launcher, signal: NodeJS.Signals = 'SIGINT'): Promise<number | null> {
    return stopProcess(launcher.proc, signal, 15_000);
}

async function refused(url: string): Promise<boolean> {
    try {
        await fetch(url);
        return false;
    } catch {
        return true;
    }
}

interface LaunchEnv extends Record<string, string> {
    PORT: string;
}

async function portsEnv(): Promise<LaunchEnv> {
    return { PORT: String(await freePort()), OBJECTS_PORT: String(await freePort()), STATES_PORT: String(await freePort()) };
}

t.test('fresh data dir: seeds, answers, stops on Ctrl-C and keeps written values', async t => {
    const dataDir = mkdtempSync(join(tmpdir(), 'rest-api-launcher-'));
    t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
    const env = { ...(await portsEnv()), IOBROKER_DATA_DIR: dataDir };
    const base = `http://127.0.0.1:${env.PORT}`;

    let launcher = launch(env);
    const alive = await waitFor200(`${base}/v1/state/system.adapter.rest-api.0.alive`, launcher);
    t.match(await alive.json(), { val: true, id: 'system.adapter.rest-api.0.alive' });
    t.match(launcher.output(), new RegExp(`http://127.0.0.1:${env.PORT}/`), 'prints the URL');
    const docs = await fetch(`${base}/api-doc/`);
    t.equal(docs.status, 200, 'the docs page');
    await docs.arrayBuffer();
    const written = await fetch(`${base}/v1/state/0_userdata.0.example_state?value=true`);
    t.equal(written.status, 200);
    await written.arrayBuffer();

    const reports = await fetch(`${base}/v1/state/system.adapter.rest-api.0.plugins.sentry.enabled`);
    t.match(await reports.json(), { val: false }, 'error reports stay off under npm start');
    t.match(launcher.output(), /error reports to the maintainers off/);

    t.equal(await stop(launcher), 0, 'Ctrl-C ends the launcher cleanly');
    t.ok(await refused(`${base}/name`), 'the port is released');

    launcher = launch({ ...env, REST_API_REPORT_ERRORS: 'true' });
    const again = await waitFor200(`${base}/v1/state/0_userdata.0.example_state`, launcher);
    t.match(await again.json(), { val: true }, 'the value survived the restart');
    // the launcher allows them; the plugin itself may still say no (it does on CI machines)
    t.match(launcher.output(), /error reports to the maintainers allowed/, 'REST_API_REPORT_ERRORS=true allows them');
    t.equal(await stop(launcher, 'SIGTERM'), 0);
});

t.test('a config change through the API restarts the adapter with it; two launchers side by side', async t => {
    await ensureSeed();
    const dirs = [mkdtempSync(join(tmpdir(), 'rest-api-launcher-')), mkdtempSync(join(tmpdir(), 'rest-api-launcher-'))];
    t.teardown(() => dirs.forEach(d => rmSync(d, { recursive: true, force: true })));
    dirs.forEach(copySeed);
    const envs = [{ ...(await portsEnv()), IOBROKER_DATA_DIR: dirs[0] }, { ...(await portsEnv()), IOBROKER_DATA_DIR: dirs[1] }];
    const launchers = envs.map(launch);
    t.teardown(() => Promise.all(launchers.map(l => stop(l))));
    for (const [i, env] of envs.entries()) {
        const res = await waitFor200(`http://127.0.0.1:${env.PORT}/name`, launchers[i]);
        t.equal(await res.text(), 'rest-api.0');
    }

    const newPort = await freePort();
    const put = await fetch(`http://127.0.0.1:${envs[0].PORT}/v1/object/system.adapter.rest-api.0`, {
        method: 'PUT',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ native: { port: newPort } }),
    });
    t.equal(put.status, 200);
    await put.arrayBuffer();
    await waitFor200(`http://127.0.0.1:${newPort}/name`, launchers[0]);
    t.ok(await refused(`http://127.0.0.1:${envs[0].PORT}/name`), 'the old port is closed');
    t.match(launchers[0].output(), /config changed/);
    const other = await fetch(`http://127.0.0.1:${envs[1].PORT}/name`);
    t.equal(other.status, 200, 'the other launcher is unaffected');
    await other.arrayBuffer();
});
