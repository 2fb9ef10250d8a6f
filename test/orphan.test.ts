/*
 * An adapter never outlives its launcher or its database unbounded: with the launcher killed, the
 * database server killed, or a Redis that does not come back, the adapter process stops within 30 s,
 * and its memory does not grow while it waits.
 */
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { PROJECT_ROOT } from '../scripts/embedded-storage';
import { stopProcess } from '../scripts/stop-process';
import { startCluster } from './support/cluster';
import { startIobroker } from './support/iobroker';
import { freePort } from './support/ports';
import { hasRedis } from './support/redis';
import { copySeed, ensureSeed } from './support/seed';
import { sleep, until } from './support/until';

const LIMIT_MS = 30_000;

/** RSS in MB of a live process; undefined once it is gone (or only a zombie is left). */
function rssMb(pid: number): number | undefined {
    try {
        const status = readFileSync(`/proc/${pid}/status`, 'utf8');
        if (/^State:\s+Z/m.test(status)) {
            return undefined;
        }
        const kb = Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1]);
        return Number.isFinite(kb) ? kb / 1024 : undefined;
    } catch {
        return undefined;
    }
}

/** Watches `pid` from now on: how long it lived on, and its RSS at the start and at most meanwhile. */
async function watchToEnd(pid: number): Promise<{ ms: number; startMb: number; maxMb: number }> {
    const started = Date.now();
    const startMb = rssMb(pid) ?? 0;
    let maxMb = startMb;
    for (;;) {
        const now = rssMb(pid);
        if (now === undefined || Date.now() - started > LIMIT_MS + 15_000) {
            return { ms: Date.now() - started, startMb, maxMb };
        }
        maxMb = Math.max(maxMb, now);
        await sleep(250);
    }
}

function checkEnd(t: Test, what: string, end: { ms: number; startMb: number; maxMb: number }): void {
    t.ok(end.ms < LIMIT_MS, `${what}: the adapter stopped after ${(end.ms / 1000).toFixed(1)} s`);
    t.ok(end.maxMb - end.startMb < 30, `${what}: its RSS did not grow meanwhile (${end.startMb.toFixed(0)} -> at most ${end.maxMb.toFixed(0)} MB)`);
}

t.test('the launcher killed (SIGKILL): its adapter stops within 30 s', async t => {
    await ensureSeed();
    const dataDir = mkdtempSync(join(tmpdir(), 'rest-api-orphan-'));
    t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
    copySeed(dataDir);
    const port = await freePort();
    const env = { ...process.env, PORT: String(port), OBJECTS_PORT: String(await freePort()), STATES_PORT: String(await freePort()), IOBROKER_DATA_DIR: dataDir };
    // the launcher and its adapter write into one file, which outlives both
    const out = openSync(join(dataDir, 'launcher.log'), 'w');
    const launcher = spawn(process.execPath, [join(PROJECT_ROOT, 'build', 'scripts', 'embedded.js')], { cwd: PROJECT_ROOT, env, stdio: ['ignore', out, out] });
    closeSync(out);
    t.teardown(() => stopProcess(launcher, 'SIGKILL'));
    t.ok(await until(async () => (await fetch(`http://127.0.0.1:${port}/name`).catch(() => null))?.status === 200, 90_000), 'the launcher serves');
    const adapter = Number(execFileSync('ps', ['-o', 'pid=', '--ppid', String(launcher.pid)], { encoding: 'utf8' }).trim().split('\n')[0]);
    t.ok(adapter > 0, 'its adapter process');
    t.teardown(() => void (rssMb(adapter) !== undefined && process.kill(adapter, 'SIGKILL')));
    launcher.kill('SIGKILL');
    const end = await watchToEnd(adapter);
    checkEnd(t, 'launcher killed', end);
    if (end.ms >= LIMIT_MS) {
        t.comment(readFileSync(join(dataDir, 'launcher.log'), 'utf8').split('\n').slice(-30).join('\n'));
    }
});

t.test('the database server killed: the adapter stops within 30 s', async t => {
    const iob = await startIobroker();
    const pid = iob.pid!;
    t.teardown(() => void (rssMb(pid) !== undefined && process.kill(pid, 'SIGKILL')));
    t.equal((await iob.request('/v1/state/system.adapter.rest-api.0.alive')).status, 200, 'serving');
    // the servers and the test's own clients go; nothing answers on the database ports any more
    await iob.storage.close();
    checkEnd(t, 'database killed', await watchToEnd(pid));
    t.match(iob.logs(), /No connection to the ioBroker database for \d+ s: stopping/, 'it says why');
    const logs = iob.logs();
    t.comment(logs.slice(logs.indexOf('No connection to the ioBroker') - 200).split('\n').filter(l => !/get state error/.test(l)).join('\n'));
    rmSync(iob.storage.dataDir, { recursive: true, force: true });
});

if (hasRedis() || process.env.CI) {
    t.test('a Redis that does not come back: the adapter stops within 30 s', async t => {
        const cluster = await startCluster(1, {});
        const pid = cluster.nodes[0].pid!;
        t.teardown(() => cluster.stop().catch(() => undefined));
        await cluster.store.close();
        checkEnd(t, 'Redis gone', await watchToEnd(pid));
    });
}
