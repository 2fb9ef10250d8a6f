/*
 * An ioBroker host laid out as the installer does, for the upgrade test: a folder with
 * iobroker.js-controller, admin and rest-api 4.0.2 installed by npm, `iobroker setup first` on loopback
 * ports of its own, js-controller started in its own process group. The npm install is made once and
 * kept in the temp folder, named by all it depends on (scripts/cache-key.js); each run copies it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import {
    cpSync,
    existsSync,
    mkdirSync,
    mkdtempSync,
    readdirSync,
    readFileSync,
    renameSync,
    rmSync,
    writeFileSync,
} from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../scripts/embedded-storage';
import { freePort, listeningOn } from './ports';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { cacheKey } = require('../../../scripts/cache-key.js') as { cacheKey: (...parts: unknown[]) => string };
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { installable } = require('../../../scripts/harness-controllers.js') as {
    installable: (version: string, cacheDir: string) => string;
};

export const CONTROLLER_VERSION = '7.2.3';
export const RELEASE = '4.0.2';
const readJson = (file: string): any => JSON.parse(readFileSync(file, 'utf8'));
// the admin of the dev workspace: its npm cache holds it already, and it meets 5's admin >=7.6.20
const ADMIN_VERSION: string = readJson(join(PROJECT_ROOT, 'dev', 'package.json')).dependencies['iobroker.admin'];

/** The environment of a user's shell: nothing of the test runner's that would point js-controller elsewhere. */
function userEnv(): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = { ...process.env, SCARF_ANALYTICS: 'false' };
    for (const name of Object.keys(env)) {
        // `npm test` hands its project to every npm below it (npm_config_local_prefix): the npm that
        // js-controller runs would install into this repository instead of the host
        if (/^npm_/i.test(name) || name === 'INIT_CWD') {
            delete env[name];
        }
    }
    for (const name of ['IOBROKER_DATA_DIR', 'NODE_PATH', 'NODE_OPTIONS', 'TAP', 'TAP_CHILD_ID']) {
        delete env[name];
    }
    return env;
}

export interface Run {
    code: number | null;
    output: string;
}

/** Runs a command in its own process group; after `timeoutMs` the whole group is killed and the run fails. */
export function run(
    cmd: string,
    args: string[],
    cwd: string,
    timeoutMs: number,
    env: NodeJS.ProcessEnv = userEnv(),
): Promise<Run> {
    return new Promise((resolve, reject) => {
        const child = spawn(cmd, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
        let output = '';
        child.stdout.on('data', d => (output += d));
        child.stderr.on('data', d => (output += d));
        const timer = setTimeout(() => {
            killGroup(child);
            reject(
                new Error(
                    `\`${cmd} ${args.join(' ')}\` did not end within ${timeoutMs / 1000} s:\n${output.slice(-3000)}`,
                ),
            );
        }, timeoutMs);
        child.on('error', err => {
            clearTimeout(timer);
            reject(err);
        });
        child.on('close', code => {
            clearTimeout(timer);
            resolve({ code, output });
        });
    });
}

function killGroup(child: ChildProcess): void {
    try {
        process.kill(-child.pid!, 'SIGKILL');
    } catch {
        // already gone
    }
}

async function npm(args: string[], cwd: string, timeoutMs: number): Promise<void> {
    const { code, output } = await run('npm', args, cwd, timeoutMs);
    if (code !== 0) {
        throw new Error(`\`npm ${args.join(' ')}\` failed (exit code ${code}):\n${output.slice(-3000)}`);
    }
}

/**
 * The installation's package.json and node_modules as npm leaves them, made on first use. Install
 * scripts are left out (js-controller's would run `setup first` on the default ports 9000/9001);
 * the two native modules js-controller uses are built after.
 */
export async function installedPackages(): Promise<string> {
    const base = join(tmpdir(), 'rest-api-upgrade');
    // the harness' pack of js-controller (with our overrides written in) is reused, not packed again
    const controller = installable(CONTROLLER_VERSION, join(tmpdir(), 'rest-api-harness'));
    // a repacked tarball lies inside the installation: npm's lockfile names it by a relative path,
    // which has to hold in every copy of the installation too
    const packed = controller.startsWith('file:') ? controller.slice('file:'.length) : undefined;
    const dependencies = {
        'iobroker.js-controller': packed ? 'file:js-controller.tgz' : controller,
        'iobroker.admin': ADMIN_VERSION,
        'iobroker.rest-api': RELEASE,
    };
    const overrides = readJson(join(PROJECT_ROOT, 'package.json')).overrides ?? {};
    // with a version, as the installer writes it: js-controller replaces a package.json without one
    // by a bare one at its start, and npm then removes everything it does not name (js-controller too)
    const manifest = { name: 'iobroker.inst', version: '1.0.0', private: true, dependencies, overrides };
    const dir = join(base, `node-${process.version}-${cacheKey(JSON.stringify(manifest), controller)}`);
    if (existsSync(join(dir, 'complete'))) {
        return dir;
    }
    mkdirSync(base, { recursive: true });
    const building = mkdtempSync(join(base, 'building-'));
    try {
        if (packed) {
            cpSync(packed, join(building, 'js-controller.tgz'));
        }
        writeFileSync(join(building, 'package.json'), JSON.stringify(manifest, null, 2));
        await npm(
            ['install', '--omit=dev', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund'],
            building,
            240_000,
        );
        await npm(['rebuild', 'diskusage', 'unix-dgram'], building, 120_000);
        writeFileSync(join(building, 'complete'), '');
        renameSync(building, dir);
    } catch (err) {
        rmSync(building, { recursive: true, force: true });
        // another run finished the same install meanwhile
        if (existsSync(join(dir, 'complete'))) {
            return dir;
        }
        throw err;
    }
    return dir;
}

export interface HostPorts {
    objects: number;
    states: number;
}

export interface Host {
    root: string;
    ports: HostPorts;
    /** `iobroker <args>`; fails with the CLI's output unless it exits with 0. */
    cli(args: string[], timeoutMs?: number): Promise<string>;
    startController(): Promise<void>;
    /** Everything js-controller and its instances wrote to the log files so far. */
    log(): string;
    /** js-controller's own stdout and stderr. */
    output(): string;
    stop(): Promise<void>;
}

/** A copy of the installation in a new temp folder, with iobroker.json on free loopback ports, set up. */
export async function layOutHost(packages: string): Promise<Host> {
    const root = mkdtempSync(join(tmpdir(), 'rest-api-upgrade-host-'));
    let controller: ChildProcess | undefined;
    let output = '';
    const host: Host = {
        root,
        ports: { objects: await freePort(), states: await freePort() },
        async cli(args, timeoutMs = 60_000) {
            const cliRun = await run(
                process.execPath,
                [join(root, 'node_modules', 'iobroker.js-controller', 'iobroker.js'), ...args],
                root,
                timeoutMs,
            );
            if (cliRun.code !== 0) {
                throw new Error(
                    `\`iobroker ${args.join(' ')}\` failed (exit code ${cliRun.code}):\n${cliRun.output.slice(-3000)}`,
                );
            }
            return cliRun.output;
        },
        async startController() {
            // instances end with the controller even when it is killed (they check their parent)
            const exitWithParent = `--require ${join(__dirname, 'exit-with-parent.js')}`;
            controller = spawn(
                process.execPath,
                [join(root, 'node_modules', 'iobroker.js-controller', 'controller.js')],
                {
                    cwd: root,
                    env: { ...userEnv(), NODE_OPTIONS: exitWithParent },
                    detached: true,
                    stdio: ['ignore', 'pipe', 'pipe'],
                },
            );
            controller.stdout!.on('data', d => (output += d));
            controller.stderr!.on('data', d => (output += d));
            // a client that finds no server yet gives up instead of retrying
            await listeningOn(
                host.ports.objects,
                controller,
                () => `js-controller does not serve its DB on port ${host.ports.objects}:\n${output.slice(-3000)}`,
            );
            await listeningOn(
                host.ports.states,
                controller,
                () => `js-controller does not serve its DB on port ${host.ports.states}:\n${output.slice(-3000)}`,
            );
        },
        log() {
            const dir = join(root, 'log');
            return existsSync(dir)
                ? readdirSync(dir)
                      .filter(name => name.endsWith('.log'))
                      .map(name => readFileSync(join(dir, name), 'utf8'))
                      .join('')
                : '';
        },
        output: () => output,
        async stop() {
            const proc = controller;
            if (proc && proc.exitCode === null && proc.signalCode === null) {
                // nothing is checked after the last step: the whole group (controller, DB servers, instances)
                // goes at once instead of a graceful stop of up to 15 s
                const ended = new Promise(resolve => proc.once('exit', resolve));
                killGroup(proc);
                await ended;
            }
            // off the event loop: a few hundred MB of small files
            await rm(root, { recursive: true, force: true });
        },
    };
    try {
        for (const name of readdirSync(packages).filter(name => name !== 'complete')) {
            cpSync(join(packages, name), join(root, name), { recursive: true, verbatimSymlinks: true });
        }
        // what `setup custom` asks for, written before setup: js-controller takes an existing iobroker.json
        const config = readJson(join(root, 'node_modules', 'iobroker.js-controller', 'conf', 'iobroker-dist.json'));
        Object.assign(config.objects, { host: '127.0.0.1', port: host.ports.objects });
        Object.assign(config.states, { host: '127.0.0.1', port: host.ports.states });
        config.dataDir = '../../iobroker-data/';
        mkdirSync(join(root, 'iobroker-data'));
        writeFileSync(join(root, 'iobroker-data', 'iobroker.json'), JSON.stringify(config, null, 2));
        await host.cli(['setup', 'first'], 90_000);
        // setup first made admin.0 on the fixed port 8081: it only has to exist (4.0.2 and 5 name admin as a
        // global dependency), so it stays off and binds nothing
        await host.cli(['object', 'set', 'system.adapter.admin.0', 'common.enabled=false'], 60_000);
    } catch (err) {
        await host.stop();
        throw err;
    }
    return host;
}

/* eslint-disable @typescript-eslint/no-require-imports */
const ObjectsClient = require('@iobroker/db-objects-redis').Client;
const StatesClient = require('@iobroker/db-states-redis').Client;
/* eslint-enable @typescript-eslint/no-require-imports */

export interface Clients {
    objects: any;
    states: any;
    close(): Promise<void>;
}

/** Clients of the host's databases (as admin's backend is one), once the controller serves them. */
export async function connectClients(host: Host): Promise<Clients> {
    const config = readJson(join(host.root, 'iobroker-data', 'iobroker.json'));
    const quiet = (): void => undefined;
    const logger = { silly: quiet, debug: quiet, info: quiet, warn: quiet, error: quiet };
    const connect = (Client: any, connection: unknown, what: string): Promise<any> =>
        new Promise((resolve, reject) => {
            const timer = setTimeout(
                () =>
                    reject(
                        new Error(
                            `the ${what} DB of the host did not answer within 60 s:\n${host.output().slice(-3000)}`,
                        ),
                    ),
                60_000,
            );
            const client = new Client({
                connection,
                logger,
                hostname: 'upgrade-test',
                connected: () => {
                    clearTimeout(timer);
                    setImmediate(() => resolve(client));
                },
            });
        });
    const objects = await connect(ObjectsClient, config.objects, 'objects');
    const states = await connect(StatesClient, config.states, 'states');
    return {
        objects,
        states,
        async close() {
            await objects.destroy().catch(() => undefined);
            await states.destroy().catch(() => undefined);
        },
    };
}
