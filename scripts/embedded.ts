/*
 * `npm start`: embedded ioBroker storage plus the rest-api adapter, like a one-adapter js-controller.
 * Restarts the adapter when the instance's native config changes; Ctrl-C or SIGTERM stops everything cleanly at any moment.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { stopProcess } from './stop-process';
import type { CliRun, Storage } from './embedded-storage';

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
    let lastNative = '';
    let child: ChildProcess | null = null;
    let seeding: CliRun | null = null;
    let storageStart: Promise<Storage> | undefined;
    let busy: Promise<unknown> = Promise.resolve();
    let stopping: Promise<void> | null = null;
    let signalled = false;
    let restartTimer: NodeJS.Timeout | undefined;

    // Stops at any moment: after the startup step in progress, children first, then the DB servers,
    // which flush their files on close. A startup failure takes the same way out.
    const shutdown = (failure?: Error): Promise<void> =>
        (stopping ??= (async () => {
            clearTimeout(restartTimer);
            await busy;
            await Promise.all([stopProcess(seeding?.child ?? null), stopProcess(child)]);
            await (await storageStart?.catch(() => undefined))?.close();
            // Ctrl-C ends `setup first` too, and its failure may arrive before the signal does
            if (failure && !signalled) {
                console.error(`[launcher] cannot start: ${failure.message}`);
                process.exit(1);
            }
            process.exit(0);
        })());
    // first of all: a signal's default action would end the process before the DBs flush
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
        process.on(signal, () => {
            signalled = true;
            void shutdown();
        });
    }
    /** One startup step at a time; shutdown lets it finish, and none follows once stopping. */
    const step = async <T>(work: Promise<T>): Promise<T> => {
        busy = work.catch(() => undefined);
        const result = await work;
        if (stopping) {
            throw new Error('stopped during startup');
        }
        return result;
    };

    try {
        // loading js-controller's DB modules takes half a second: the handlers above come first
        console.log("[launcher] loading js-controller's storage");
        const { INSTANCE_ID, needsSeed, nodeProcessParams, PROJECT_ROOT, seedBasicsReady, setupFirst, setupUnfinished, startStorage, writeInstance } = await step(
            import('./embedded-storage'),
        );
        const dataDir = resolve(process.env.IOBROKER_DATA_DIR || join(PROJECT_ROOT, 'iobroker-data'));

        let ready = Promise.resolve(true);
        const spawnAdapter = (): void => {
            const proc = spawn(process.execPath, [...nodeProcessParams(), WARM_ADAPTER, '--console'], {
                cwd: PROJECT_ROOT,
                env: { ...process.env, IOBROKER_DATA_DIR: dataDir },
                stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
            });
            void ready.then(ok => ok && proc.connected && proc.send('start'));
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

        storageStart = startStorage({
            dataDir,
            objectsPort: envPort('OBJECTS_PORT'),
            statesPort: envPort('STATES_PORT'),
            verbose: true,
            onObjectChange,
        });
        const storage = await step(storageStart);
        // `setup first` needs ~2 s, mostly to load js-controller's CLI; the adapter starts meanwhile,
        // unless the run continues an interrupted one, whose partial DB may already hold the basics
        const rerun = setupUnfinished(dataDir);
        if (await step(needsSeed(storage))) {
            seeding = setupFirst(dataDir);
            // false when the CLI failed or a stop ended it: the adapter then never starts
            ready = (rerun ? seeding : seedBasicsReady(storage, seeding)).then(
                () => true,
                () => false,
            );
        }
        const existing = await step(storage.objects.getObjectAsync(INSTANCE_ID));
        const port = envPort('PORT') ?? (existing ? undefined : 8093);
        const bind = process.env.BIND || (existing ? undefined : '127.0.0.1');
        await step(writeInstance(storage, { ...(port ? { port } : {}), ...(bind ? { bind } : {}) }));
        const instance: ioBroker.InstanceObject = await step(storage.objects.getObjectAsync(INSTANCE_ID));
        lastNative = JSON.stringify(instance.native);
        await step(storage.objects.subscribeAsync(INSTANCE_ID));
        // a developer's machine reports no errors to the maintainers unless asked to (the plugin's own switch)
        const reports = process.env.REST_API_REPORT_ERRORS === 'true';
        await step(storage.states.setStateAsync(`${INSTANCE_ID}.plugins.sentry.enabled`, { val: reports, ack: true, from: 'system.host.embedded' }));
        console.log(`[launcher] error reports to the maintainers ${reports ? 'allowed' : 'off'} (REST_API_REPORT_ERRORS)`);

        spawnAdapter();
        const host = instance.native.bind === '0.0.0.0' ? '127.0.0.1' : instance.native.bind;
        const protocol = instance.native.secure ? 'https' : 'http';
        console.log(`[launcher] rest-api starting on ${protocol}://${host}:${instance.native.port}/ (data: ${dataDir}); Ctrl-C stops`);
        if (seeding) {
            await seeding;
            console.log(`[launcher] new data directory ${dataDir} set up`);
        }
    } catch (err) {
        await shutdown(err as Error);
    }
}

void main();
