/*
 * Starts ioBroker storage the way js-controller does: its own jsonl objects and states servers in
 * this process (or nothing, when iobroker.json points at Redis), seeds a fresh data dir with
 * `setup first`, and writes the rest-api adapter and instance objects from io-package.json.
 * Shared by the `npm start` launcher and the integration-test fixture. Development only.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

export const PROJECT_ROOT = join(__dirname, '..', '..');
export const CONTROLLER_DIR = dirname(require.resolve('iobroker.js-controller/package.json'));

type DbConfig = { type: string; host: string; port: number; dataDir?: string; [key: string]: unknown };
export interface IobConfig {
    objects: DbConfig;
    states: DbConfig;
    dataDir: string;
    [key: string]: unknown;
}

export interface StorageOptions {
    dataDir: string;
    objectsPort?: number;
    statesPort?: number;
    /** Print js-controller's DB warnings and errors (the launcher does, tests stay quiet). */
    verbose?: boolean;
}

/* eslint-disable @typescript-eslint/no-require-imports */
const ObjectsServer = require('@iobroker/db-objects-jsonl').Server;
const StatesServer = require('@iobroker/db-states-jsonl').Server;
const ObjectsClient = require('@iobroker/db-objects-redis').Client;
const StatesClient = require('@iobroker/db-states-redis').Client;
/* eslint-enable @typescript-eslint/no-require-imports */

function logger(verbose: boolean): Record<string, (msg: string) => void> {
    const quiet = (): void => undefined;
    const say = (msg: string): void => console.log(`[storage] ${msg}`);
    return { silly: quiet, debug: quiet, info: quiet, warn: verbose ? say : quiet, error: verbose ? say : quiet };
}

/** Writes iobroker.json on first use (what `setup first` would write) and applies port overrides. */
export function prepareConfig({ dataDir, objectsPort, statesPort }: StorageOptions): IobConfig {
    mkdirSync(dataDir, { recursive: true });
    const file = join(dataDir, 'iobroker.json');
    let config: IobConfig;
    if (existsSync(file)) {
        config = JSON.parse(readFileSync(file, 'utf8'));
    } else {
        config = JSON.parse(readFileSync(join(CONTROLLER_DIR, 'conf', 'iobroker-dist.json'), 'utf8'));
        config.dataDir = relative(CONTROLLER_DIR, dataDir) + '/';
        config.objects.host = '127.0.0.1';
        config.states.host = '127.0.0.1';
    }
    if (objectsPort) {
        config.objects.port = objectsPort;
    }
    if (statesPort) {
        config.states.port = statesPort;
    }
    writeFileSync(file, JSON.stringify(config, null, 2));
    return config;
}

export interface Storage {
    config: IobConfig;
    dataDir: string;
    /** A client of the objects DB (also on Redis). */
    objects: any;
    states: any;
    /** Stops the in-process DB servers for `pauseMs` and starts them again on the same ports (fault tests). */
    bounce(pauseMs: number): Promise<void>;
    close(): Promise<void>;
}

function waitConnected(create: (connected: () => void) => unknown, what: string, timeoutMs = 15_000): Promise<any> {
    return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${what} did not connect within ${timeoutMs} ms`)), timeoutMs);
        const instance: unknown = create(() => {
            clearTimeout(timer);
            // the constructor has returned by the time the callback fires asynchronously
            setImmediate(() => resolve(instance));
        });
    });
}

export interface StartOptions extends StorageOptions {
    /** The DB servers run in another process (a real js-controller's): connect clients only. */
    serversElsewhere?: boolean;
    /** Called for every change of an object the caller subscribed with `storage.objects.subscribe`. */
    onObjectChange?: (id: string, obj: ioBroker.Object | null) => void;
}

/** Starts the DB servers (unless Redis) and connects clients to them. */
export async function startStorage(options: StartOptions): Promise<Storage> {
    process.env.IOBROKER_DATA_DIR = options.dataDir;
    const config = prepareConfig(options);
    const log = logger(!!options.verbose);
    let servers: any[] = [];
    const local = (db: DbConfig): DbConfig => ({ ...db, dataDir: options.dataDir });
    const startServers = async (): Promise<void> => {
        if (config.objects.type !== 'redis') {
            servers.push(await waitConnected(connected => new ObjectsServer({ connection: local(config.objects), logger: log, hostname: 'embedded', connected }), 'objects server'));
        }
        if (config.states.type !== 'redis') {
            servers.push(await waitConnected(connected => new StatesServer({ connection: local(config.states), logger: log, hostname: 'embedded', connected }), 'states server'));
        }
    };
    const stopServers = async (): Promise<void> => {
        // servers flush their jsonl files on destroy, so written values survive a restart
        for (const server of servers.reverse()) {
            await server.destroy().catch(() => undefined);
            // js-controller 7.2.3 leaves its day-long session-expiry timers running after destroy
            for (const expiry of Object.values<{ timeout?: NodeJS.Timeout }>(server.statesServer?.sessionExpires ?? {})) {
                clearTimeout(expiry.timeout);
            }
        }
        servers = [];
    };
    if (!options.serversElsewhere) {
        await startServers();
    }
    const objects = await waitConnected(
        connected => new ObjectsClient({ connection: config.objects, logger: log, hostname: 'embedded-client', connected, change: options.onObjectChange }),
        'objects client',
    );
    const states = await waitConnected(connected => new StatesClient({ connection: config.states, logger: log, hostname: 'embedded-client', connected }), 'states client');
    return {
        config,
        dataDir: options.dataDir,
        objects,
        states,
        async bounce(pauseMs) {
            await stopServers();
            await new Promise(resolve => setTimeout(resolve, pauseMs));
            await startServers();
        },
        async close() {
            await objects.destroy().catch(() => undefined);
            await states.destroy().catch(() => undefined);
            await stopServers();
        },
    };
}

/** Lies in the data dir while `setup first` runs: a stop in between leaves a partial DB to set up again. */
const SETUP_MARKER = 'setup-first.unfinished';

export function setupUnfinished(dataDir: string): boolean {
    return existsSync(join(dataDir, SETUP_MARKER));
}

export async function needsSeed(storage: Storage): Promise<boolean> {
    return setupUnfinished(storage.dataDir) || !(await storage.objects.getObjectAsync('system.config'));
}

/** `setup first` against the running DBs, marked unfinished until it succeeds (it may run again over a partial DB). */
export function setupFirst(dataDir: string): CliRun {
    writeFileSync(join(dataDir, SETUP_MARKER), '');
    const run = runCli(['setup', 'first', '--console'], dataDir);
    return Object.assign(
        run.then(() => rmSync(join(dataDir, SETUP_MARKER), { force: true })),
        { child: run.child },
    );
}

/** Another client of the states DB, e.g. to play an adapter instance that answers messages. */
export function connectStatesClient(storage: Storage, change: (id: string, value: unknown) => void): Promise<any> {
    return waitConnected(
        connected => new StatesClient({ connection: storage.config.states, logger: logger(false), hostname: 'embedded-peer', connected, change }),
        'states client',
    );
}

/** Runs js-controller's `setup first` against the running DBs when the data dir is new. */
export async function seedIfNeeded(storage: Storage): Promise<boolean> {
    if (!(await needsSeed(storage))) {
        return false;
    }
    await setupFirst(storage.dataDir);
    return true;
}

/** A running CLI command: resolves when it exited with 0; `child` lets a shutdown stop it. */
export type CliRun = Promise<void> & { child: ChildProcess };

/** js-controller's CLI, spawned: the DB servers live in this event loop, a sync call would deadlock. */
export function runCli(args: string[], dataDir: string, env: Record<string, string> = {}): CliRun {
    const child = spawn(process.execPath, [join(CONTROLLER_DIR, 'iobroker.js'), ...args], {
        cwd: PROJECT_ROOT,
        env: { ...process.env, ...env, IOBROKER_DATA_DIR: dataDir },
        stdio: ['ignore', 'pipe', 'pipe'],
    });
    const done = new Promise<void>((resolve, reject) => {
        let output = '';
        child.stdout.on('data', d => (output += d));
        child.stderr.on('data', d => (output += d));
        child.on('error', reject);
        child.on('exit', (code, signal) =>
            code === 0 ? resolve() : reject(new Error(`iobroker ${args.join(' ')} exited with ${code ?? signal}: ${output.slice(-2000)}`)),
        );
    });
    return Object.assign(done, { child });
}

export const INSTANCE_ID = 'system.adapter.rest-api.0';

/** The Node flags js-controller starts the adapter with (io-package.json `common.nodeProcessParams`). */
export function nodeProcessParams(): string[] {
    return JSON.parse(readFileSync(join(PROJECT_ROOT, 'io-package.json'), 'utf8')).common.nodeProcessParams ?? [];
}

export interface InstanceOptions {
    /** Instance number (default 0). */
    instance?: number;
    /** Another io-package.json (the bench's published release); its instance leaves system.adapter.rest-api alone. */
    ioPackageFile?: string;
}

/** Writes system.adapter.rest-api and its instance from io-package.json, keeping a stored native config. */
export async function writeInstance(storage: Storage, native: Record<string, unknown> = {}, { instance = 0, ioPackageFile }: InstanceOptions = {}): Promise<void> {
    const io = JSON.parse(readFileSync(ioPackageFile ?? join(PROJECT_ROOT, 'io-package.json'), 'utf8'));
    const namespace = `rest-api.${instance}`;
    const instanceId = `system.adapter.${namespace}`;
    const { tools } = require('@iobroker/js-controller-common-db'); // eslint-disable-line @typescript-eslint/no-require-imports
    const host = tools.getHostName();
    const now = Date.now();
    const from = `system.host.${host}.cli`;
    const common = { ...io.common, installedVersion: io.common.version, installedFrom: 'embedded', host };
    delete common.news;
    if (!ioPackageFile) {
        await storage.objects.setObjectAsync('system.adapter.rest-api', { _id: 'system.adapter.rest-api', type: 'adapter', common, native: io.native, from, ts: now });
    }
    const existing = await storage.objects.getObjectAsync(instanceId);
    const instanceObject = {
        _id: instanceId,
        type: 'instance',
        common: { ...common, enabled: true },
        native: { ...io.native, ...(existing?.native ?? {}), ...native },
        from,
        ts: now,
    };
    await storage.objects.setObjectAsync(instanceId, instanceObject);
    const indicators = tools.getInstanceIndicatorObjects(namespace, common);
    const own = (io.instanceObjects ?? []).map((o: { _id: string }) => ({ ...o, _id: `${namespace}.${o._id}` }));
    for (const obj of [...indicators, ...own]) {
        if (!(await storage.objects.getObjectAsync(obj._id))) {
            await storage.objects.setObjectAsync(obj._id, { ...obj, from, ts: now });
        }
    }
}

/**
 * Resolves once a seeding `setup first` has written what an adapter needs to start (the design
 * views and system.config). Its CLI keeps running, and waits a second before it exits.
 */
export async function seedBasicsReady(storage: Storage, seeding: Promise<void>, intervalMs = 50): Promise<void> {
    let failed: unknown = null;
    seeding.catch(err => (failed = err));
    for (;;) {
        if (failed) {
            throw failed;
        }
        const [config, design] = await Promise.all([storage.objects.getObjectAsync('system.config'), storage.objects.getObjectAsync('_design/system')]);
        if (config && design) {
            return;
        }
        await new Promise(r => setTimeout(r, intervalMs));
    }
}
