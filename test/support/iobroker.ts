/*
 * The real-storage fixture: js-controller's jsonl DB servers in this test process on random
 * loopback ports, a data dir of its own, and the adapter spawned as `build/src/main.js`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INSTANCE_ID, PROJECT_ROOT, seedIfNeeded, startStorage, writeInstance, type Storage } from '../../scripts/embedded-storage';
import { stopProcess } from '../../scripts/stop-process';
import { freePort } from './ports';
import { encodeRequest, rawRequest } from './raw-request';
import { checkerFor, checkers } from './response-check';
import { writeRedisConfig } from './redis';
import { copySeed, ensureSeed } from './seed';

export interface HttpAnswer {
    status: number;
    headers: Record<string, string>;
    text: string;
    /** The body parsed as JSON, or undefined when it is not JSON. */
    json: any;
}

export interface RequestOptions {
    method?: string;
    body?: unknown;
    /** Sent as is (a string or bytes) instead of JSON. */
    raw?: string | Buffer;
    headers?: Record<string, string>;
}

export interface IobFixture {
    /** http or https, after the current `secure` setting. */
    readonly baseUrl: string;
    port: number;
    storage: Storage;
    logs: () => string;
    /** The running adapter process's pid; undefined once it has exited. */
    readonly pid?: number;
    request(path: string, options?: RequestOptions): Promise<HttpAnswer>;
    /** A user in its own group with the given group ACL, e.g. `{ state: { read: true } }`. */
    createUser(name: string, acl: Record<string, Record<string, boolean>>, password?: string): Promise<string>;
    createState(id: string, common: Partial<ioBroker.StateCommon>, val?: ioBroker.StateValue): Promise<void>;
    /** Changes the instance config and restarts the adapter with it. */
    restart(native?: Record<string, unknown>): Promise<void>;
    /** Stops the adapter process (it unloads and clears its alive state); storage keeps running. */
    stopAdapter(): Promise<void>;
    stop(): Promise<void>;
}

export interface FixtureOptions {
    native?: Record<string, unknown>;
    /** Use a running redis-server on this port for both databases instead of the jsonl servers. */
    redisPort?: number;
    /** Run the adapter installed in this folder (its io-package.json, build/) instead of the project's. */
    adapterRoot?: string;
    /** Environment of the adapter process on top of ours; `undefined` removes a variable. */
    env?: Record<string, string | undefined>;
}

async function waitForHttp(url: string, child: ChildProcess, logs: () => string, timeoutMs = 20_000): Promise<void> {
    const end = Date.now() + timeoutMs;
    while (Date.now() < end) {
        if (child.exitCode !== null) {
            throw new Error(`adapter exited with ${child.exitCode}:\n${logs()}`);
        }
        try {
            await rawRequest(url);
            return;
        } catch {
            await new Promise(r => setTimeout(r, 50));
        }
    }
    throw new Error(`adapter did not answer within ${timeoutMs} ms:\n${logs()}`);
}

/** js-controller's own password hash, as `iobroker passwd` stores it. */
export function hashPassword(plain: string): Promise<string> {
    const { password } = require('@iobroker/js-controller-common-db'); // eslint-disable-line @typescript-eslint/no-require-imports
    return new Promise((resolve, reject) => password(plain).hash(null, null, (err: Error | null, hash: string) => (err ? reject(err) : resolve(hash))));
}

/** A user in its own group with the given group ACL, e.g. `{ state: { read: true } }`. */
export async function createUser(storage: Storage, name: string, acl: Record<string, Record<string, boolean>>, password = 'secret'): Promise<string> {
    const userId = `system.user.${name}`;
    await storage.objects.setObjectAsync(userId, {
        _id: userId,
        type: 'user',
        common: { name, enabled: true, password: await hashPassword(password) },
        native: {},
    });
    const emptyAcl = { object: {}, state: {}, file: {}, users: {}, other: {} };
    await storage.objects.setObjectAsync(`system.group.${name}_group`, {
        _id: `system.group.${name}_group`,
        type: 'group',
        common: { name: `${name} group`, members: [userId], acl: { ...emptyAcl, ...acl } },
        native: {},
    });
    return userId;
}

/** A state object (mixed type, readable and writable unless `common` says otherwise), with a value when given. */
export async function createState(storage: Storage, id: string, common: Partial<ioBroker.StateCommon>, val?: ioBroker.StateValue): Promise<void> {
    await storage.objects.setObjectAsync(id, {
        _id: id,
        type: 'state',
        common: { name: id.split('.').pop(), role: 'state', read: true, write: true, type: 'mixed', ...common },
        native: {},
    });
    if (val !== undefined) {
        await storage.states.setStateAsync(id, { val, ack: true, from: 'system.adapter.test.0', ts: Date.now(), lc: Date.now(), q: 0 });
    }
}

export async function startIobroker(options: FixtureOptions = {}): Promise<IobFixture> {
    const dataDir = mkdtempSync(join(tmpdir(), 'rest-api-test-'));
    let storage: Storage;
    if (options.redisPort) {
        writeRedisConfig(dataDir, options.redisPort);
        storage = await startStorage({ dataDir });
        await seedIfNeeded(storage);
    } else {
        await ensureSeed();
        copySeed(dataDir);
        storage = await startStorage({ dataDir, objectsPort: await freePort(), statesPort: await freePort() });
    }
    const port = await freePort();
    await writeInstance(storage, { bind: '127.0.0.1', port, ...options.native });
    // every answer of this server is checked against the document its config gives
    const contract = async (): Promise<void> => {
        checkers.set(port, checkerFor((await storage.objects.getObjectAsync(INSTANCE_ID)).native));
    };
    await contract();
    let output = '';
    let child: ChildProcess | null = null;
    let secure = options.native?.secure === true;
    const base = (): string => `${secure ? 'https' : 'http'}://127.0.0.1:${port}`;

    const startAdapter = async (): Promise<void> => {
        const root = options.adapterRoot ?? PROJECT_ROOT;
        const proc = spawn(process.execPath, ['--require', join(__dirname, 'exit-with-parent.js'), join(root, 'build', 'src', 'main.js'), '--console'], {
            cwd: root,
            env: { ...process.env, ...options.env, IOBROKER_DATA_DIR: dataDir },
            stdio: ['ignore', 'pipe', 'pipe'],
        });
        proc.stdout!.on('data', d => (output += d));
        proc.stderr!.on('data', d => (output += d));
        child = proc;
        await waitForHttp(`${base()}/name`, proc, () => output);
    };

    const stopAdapter = async (): Promise<void> => {
        await stopProcess(child);
    };

    await startAdapter();

    const fixture: IobFixture = {
        get baseUrl() {
            return base();
        },
        port,
        storage,
        logs: () => output,
        get pid() {
            const proc = child as ChildProcess | null;
            return proc && proc.exitCode === null && proc.signalCode === null ? proc.pid : undefined;
        },
        async request(path, options = {}) {
            const { headers, payload } = encodeRequest(options);
            return rawRequest(base() + path, { method: options.method ?? 'GET', headers, body: payload });
        },
        createUser: (name, acl, password) => createUser(storage, name, acl, password),
        createState: (id, common, val) => createState(storage, id, common, val),
        stopAdapter,
        async restart(native = {}) {
            await stopAdapter();
            const instance = await storage.objects.getObjectAsync(INSTANCE_ID);
            instance.native = { ...instance.native, ...native };
            secure = instance.native.secure === true;
            await storage.objects.setObjectAsync(INSTANCE_ID, instance);
            await contract();
            await startAdapter();
        },
        async stop() {
            checkers.delete(port);
            await stopAdapter();
            await storage.close();
            rmSync(dataDir, { recursive: true, force: true });
        },
    };
    return fixture;
}
