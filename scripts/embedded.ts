/*
 * `npm start`: embedded ioBroker storage plus the rest-api adapter, like a one-adapter js-controller.
 * Restarts the adapter when the instance's native config changes and stops everything on Ctrl-C.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { stopProcess } from './stop-process';
import { INSTANCE_ID, needsSeed, nodeProcessParams, PROJECT_ROOT, runCli, seedBasicsReady, startStorage, writeInstance, type Storage } from './embedded-storage';

const WARM_ADAPTER = join(__dirname, 'warm-adapter.js');
const REQUESTED_TERMINATION = 11;

function envPort(name: string): number | undefined {
    const value = process.env[name];
    if (value === undefined || value === '') {
        return undefined;
    }
    const port = parseInt(value, 10);
    if (!(port > 0 && port < 65536)) {
        throw new Error(`${name} must be a port number, not "${value}"`);
    }
    return port;
}

async function main(): Promise<void> {
    const dataDir = resolve(process.env.IOBROKER_DATA_DIR || join(PROJECT_ROOT, 'iobroker-data'));
    let lastNative = '';
    let child: ChildProcess | null = null;
    let stopping = false;
    let restartTimer: NodeJS.Timeout | undefined;

    let ready: Promise<unknown> = Promise.resolve();
    const spawnAdapter = (): void => {
        const proc = spawn(process.execPath, [...nodeProcessParams(), WARM_ADAPTER, '--console'], {
            cwd: PROJECT_ROOT,
            env: { ...process.env, IOBROKER_DATA_DIR: dataDir },
            stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
        });
        void ready.then(() => proc.connected && proc.send('start'));
        child = proc;
        proc.on('exit', code => {
            if (child === proc) {
                child = null;
            }
            if (stopping || (proc as ChildProcess & { replaced?: boolean }).replaced) {
                return;
            }
            if (code === REQUESTED_TERMINATION) {
                console.log('[launcher] the adapter ended itself (for example it runs inside the web adapter); waiting for a config change');
                return;
            }
            console.log(`[launcher] adapter exited with code ${code}; restarting in 2 s`);
            restartTimer = setTimeout(spawnAdapter, 2000);
        });
    };

    const onObjectChange = (id: string, obj: ioBroker.Object | null): void => {
        if (id !== INSTANCE_ID || !obj || stopping) {
            return;
        }
        const native = JSON.stringify(obj.native ?? {});
        if (native === lastNative) {
            return;
        }
        lastNative = native;
        console.log('[launcher] instance config changed, restarting the adapter');
        clearTimeout(restartTimer);
        const old = child as (ChildProcess & { replaced?: boolean }) | null;
        if (old) {
            old.replaced = true;
        }
        void stopProcess(old).then(() => !stopping && spawnAdapter());
    };

    const storage: Storage = await startStorage({
        dataDir,
        objectsPort: envPort('OBJECTS_PORT'),
        statesPort: envPort('STATES_PORT'),
        verbose: true,
        onObjectChange,
    });
    // `setup first` needs ~2 s, mostly to load js-controller's CLI; the adapter starts meanwhile
    const seeding = (await needsSeed(storage)) ? runCli(['setup', 'first', '--console'], dataDir) : null;
    ready = seeding ? seedBasicsReady(storage, seeding) : ready;
    const existing = await storage.objects.getObjectAsync(INSTANCE_ID);
    const port = envPort('PORT') ?? (existing ? undefined : 8093);
    const bind = process.env.BIND || (existing ? undefined : '127.0.0.1');
    await writeInstance(storage, { ...(port ? { port } : {}), ...(bind ? { bind } : {}) });
    const instance = await storage.objects.getObjectAsync(INSTANCE_ID);
    lastNative = JSON.stringify(instance.native);
    await storage.objects.subscribeAsync(INSTANCE_ID);

    const shutdown = async (): Promise<void> => {
        if (stopping) {
            return;
        }
        stopping = true;
        clearTimeout(restartTimer);
        await stopProcess(child);
        await storage.close();
        process.exit(0);
    };
    process.on('SIGINT', () => void shutdown());
    process.on('SIGTERM', () => void shutdown());

    spawnAdapter();
    const host = instance.native.bind === '0.0.0.0' ? '127.0.0.1' : instance.native.bind;
    const protocol = instance.native.secure ? 'https' : 'http';
    console.log(`[launcher] rest-api starting on ${protocol}://${host}:${instance.native.port}/ (data: ${dataDir}); Ctrl-C stops`);
    if (seeding) {
        await seeding;
        console.log(`[launcher] new data directory ${dataDir} set up`);
    }
}

main().catch(err => {
    console.error(`[launcher] cannot start: ${(err as Error).message}`);
    process.exit(1);
});
