/*
 * A real js-controller host (the dev workspace's iobroker.js-controller) on a data dir of its own:
 * it runs the DB servers, starts every enabled instance, answers admin's host messages and restarts
 * an instance whose settings were saved. This project is installed the way npm would put it into an
 * ioBroker installation's node_modules, so the controller and its CLI find it as `iobroker.rest-api`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONTROLLER_DIR, PROJECT_ROOT, runCli, startStorage, type Storage } from '../../scripts/embedded-storage';
import { stopProcess } from '../../scripts/stop-process';
import { freePort, listeningOn } from './ports';
import { copySeed, ensureSeed } from './seed';

export interface Controller {
    /** Clients of the controller's databases. */
    storage: Storage;
    output(): string;
    stop(): Promise<void>;
}

/**
 * Seeds a data dir, lets `prepare` write objects while the DB servers still run in this process (then
 * `iobroker upload rest-api` puts the settings page where admin reads it), and starts the controller on it.
 */
export async function startController(
    prepare: (storage: Storage, env: Record<string, string>) => Promise<void>,
): Promise<Controller> {
    const dataDir = mkdtempSync(join(tmpdir(), 'rest-api-controller-'));
    const modules = mkdtempSync(join(tmpdir(), 'rest-api-installed-'));
    symlinkSync(PROJECT_ROOT, join(modules, 'iobroker.rest-api'), 'dir');
    const env = { NODE_PATH: modules, IOBROKER_DATA_DIR: dataDir };
    await ensureSeed();
    copySeed(dataDir);
    const ports = { dataDir, objectsPort: await freePort(), statesPort: await freePort() };
    const setup = await startStorage(ports);
    try {
        await prepare(setup, env);
        // the link's own path, as in an installation's node_modules: the CLI names uploaded files after it
        await runCli(['upload', 'rest-api'], dataDir, { ...env, NODE_OPTIONS: '--preserve-symlinks' });
    } finally {
        await setup.close();
    }
    let output = '';
    // the controller and every instance it starts end with their parent: no adapter outlives a killed test
    const exitWithParent = `--require "${join(__dirname, 'exit-with-parent.js')}"`;
    const proc: ChildProcess = spawn(process.execPath, [join(CONTROLLER_DIR, 'controller.js')], {
        cwd: CONTROLLER_DIR,
        env: {
            ...process.env,
            ...env,
            NODE_OPTIONS: [process.env.NODE_OPTIONS, exitWithParent].filter(Boolean).join(' '),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
    });
    proc.stdout!.on('data', d => (output += d));
    proc.stderr!.on('data', d => (output += d));
    let storage: Storage;
    try {
        // a client that finds no server yet gives up instead of retrying
        await listeningOn(ports.objectsPort, proc);
        await listeningOn(ports.statesPort, proc);
        storage = await startStorage({ ...ports, serversElsewhere: true });
    } catch (err) {
        await stopProcess(proc, 'SIGTERM', 30_000);
        throw new Error(`${(err as Error).message}; the controller said:\n${output.slice(-3000)}`);
    }
    return {
        storage,
        output: () => output,
        async stop() {
            await storage.close();
            // the controller stops its instances first, then its DB servers
            await stopProcess(proc, 'SIGTERM', 30_000);
            rmSync(dataDir, { recursive: true, force: true });
            rmSync(modules, { recursive: true, force: true });
        },
    };
}
