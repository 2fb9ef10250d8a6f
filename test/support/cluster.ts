/*
 * Several rest-api processes on one Redis (js-controller's multihost storage), each started as
 * js-controller starts an instance (`main.js --instance N`), and a round-robin proxy in front of them
 * that retries a request once on the next instance when one does not answer: a load balancer without
 * sticky sessions. Only where processes are under test: killing one, restarts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT, seedIfNeeded, startStorage, writeInstance, type Storage } from '../../scripts/embedded-storage';
import { freePort } from './ports';
import { basic } from './raw-request';
import { startRedis, writeRedisConfig, type RedisServer } from './redis';

export interface ClusterNode {
    namespace: string;
    port: number;
    readonly running: boolean;
    /** The process's pid while it runs. */
    readonly pid?: number;
    logs(): string;
    /** SIGKILL: no unload, its alive state stays until its TTL runs out, as when a host dies. */
    kill(): Promise<void>;
    start(): Promise<void>;
}

/** The database under the cluster: where iobroker.json points js-controller, and how it ends. */
export interface ClusterStore {
    writeConfig(dataDir: string): void;
    close(): Promise<void>;
}

/** One redis-server, the storage most multihost set-ups have. */
export async function plainRedis(): Promise<RedisServer & ClusterStore> {
    const redis = await startRedis();
    return { ...redis, writeConfig: dataDir => writeRedisConfig(dataDir, redis.port) };
}

export interface Cluster<S extends ClusterStore = RedisServer & ClusterStore> {
    storage: Storage;
    store: S;
    nodes: ClusterNode[];
    /** The proxy's address: every request goes to the next instance in turn. */
    baseUrl: string;
    stop(): Promise<void>;
}

async function waitForName(url: string, child: ChildProcess, logs: () => string): Promise<void> {
    const end = Date.now() + 30_000;
    while (Date.now() < end) {
        if (child.exitCode !== null) {
            throw new Error(`instance exited with ${child.exitCode}:\n${logs()}`);
        }
        const ok = await fetch(`${url}/name`)
            .then(async res => (await res.arrayBuffer(), res.ok))
            .catch(() => false);
        if (ok) {
            return;
        }
        await new Promise(resolve => setTimeout(resolve, 100));
    }
    throw new Error(`instance did not answer within 30 s:\n${logs()}`);
}

function node(storage: Storage, instance: number, port: number): ClusterNode {
    let child: ChildProcess | null = null;
    let output = '';
    return {
        namespace: `rest-api.${instance}`,
        port,
        get running() {
            return !!child && child.exitCode === null && child.signalCode === null;
        },
        get pid() {
            return this.running ? child?.pid : undefined;
        },
        logs: () => output,
        async start() {
            // after a kill its alive state outlives it (TTL): js-controller would refuse a second start
            await storage.states.setStateAsync(`system.adapter.rest-api.${instance}.alive`, { val: false, ack: true });
            const proc = spawn(process.execPath, ['--require', join(__dirname, 'exit-with-parent.js'), join(PROJECT_ROOT, 'build', 'src', 'main.js'), '--console', '--instance', String(instance)], {
                cwd: PROJECT_ROOT,
                env: { ...process.env, IOBROKER_DATA_DIR: storage.dataDir },
                stdio: ['ignore', 'pipe', 'pipe'],
            });
            proc.stdout!.on('data', d => (output += d));
            proc.stderr!.on('data', d => (output += d));
            child = proc;
            await waitForName(`http://127.0.0.1:${port}`, proc, () => output);
        },
        async kill() {
            const proc = child;
            // a killed process has no exit code but its signal: it must not be waited for again
            if (proc && proc.exitCode === null && proc.signalCode === null) {
                const exited = new Promise(resolve => proc.once('exit', resolve));
                proc.kill('SIGKILL');
                await exited;
            }
        },
    };
}

/** Forwards one buffered request to `port`; rejects when the instance cannot be reached. */
function forward(port: number, req: IncomingMessage, body: Buffer): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
        const out = request({ host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers }, resolve);
        out.once('error', reject);
        out.end(body);
    });
}

function roundRobin(nodes: ClusterNode[]): Server {
    let next = 0;
    return createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', chunk => chunks.push(chunk));
        req.on('end', async () => {
            const body = Buffer.concat(chunks);
            const first = next++;
            for (let attempt = 0; attempt < 2; attempt++) {
                const target = nodes[(first + attempt) % nodes.length];
                try {
                    const answer = await forward(target.port, req, body);
                    res.writeHead(answer.statusCode ?? 502, answer.headers);
                    answer.pipe(res);
                    res.once('close', () => answer.destroy());
                    return;
                } catch {
                    // the instance is gone: the next one gets the request, once
                }
            }
            res.writeHead(502).end();
        });
    });
}

export async function startCluster(instances?: number, native?: Record<string, unknown>): Promise<Cluster>;
export async function startCluster<S extends ClusterStore>(instances: number, native: Record<string, unknown>, startStore: () => Promise<S>): Promise<Cluster<S>>;
export async function startCluster(
    instances = 2,
    native: Record<string, unknown> = {},
    startStore: () => Promise<ClusterStore> = plainRedis,
): Promise<Cluster<ClusterStore>> {
    const store = await startStore();
    const dataDir = mkdtempSync(join(tmpdir(), 'rest-api-cluster-'));
    store.writeConfig(dataDir);
    const storage = await startStorage({ dataDir });
    await seedIfNeeded(storage);
    const nodes: ClusterNode[] = [];
    for (let instance = 0; instance < instances; instance++) {
        const port = await freePort();
        await writeInstance(storage, { bind: '127.0.0.1', port, ...native }, { instance });
        nodes.push(node(storage, instance, port));
    }
    await Promise.all(nodes.map(each => each.start()));
    const proxy = roundRobin(nodes);
    const proxyPort = await freePort();
    await new Promise<void>(resolve => proxy.listen(proxyPort, '127.0.0.1', resolve));
    return {
        storage,
        store,
        nodes,
        baseUrl: `http://127.0.0.1:${proxyPort}`,
        async stop() {
            proxy.closeAllConnections();
            await new Promise(resolve => proxy.close(resolve));
            await Promise.all(nodes.map(each => each.kill()));
            await storage.close();
            await store.close();
            rmSync(dataDir, { recursive: true, force: true });
        },
    };
}

/** Whether js-controller reports every instance of the cluster alive (each hears the others by it). */
export async function allAlive(cluster: Cluster<ClusterStore>): Promise<boolean> {
    const states = await Promise.all(cluster.nodes.map(node => cluster.storage.states.getStateAsync(`system.adapter.${node.namespace}.alive`)));
    return states.every((s: ioBroker.State | null) => s?.val === true);
}

/** Instance `n`'s own address, past the proxy. */
export function directUrl(cluster: Cluster<ClusterStore>, n: number): string {
    return `http://127.0.0.1:${cluster.nodes[n].port}`;
}

/** A request as the admin with a JSON body; status 0 when nothing answers within 10 s. An answer that is JSON
 * (polls answer JSON as text/plain, as 4.0.2 did) comes parsed. */
export async function adminCall(base: string, path: string, init: { method?: string; body?: unknown } = {}): Promise<{ status: number; json: any }> {
    const res = await fetch(`${base}${path}`, {
        method: init.method ?? 'GET',
        headers: { ...basic('admin', 'iobroker'), ...(init.body === undefined ? {} : { 'Content-Type': 'application/json' }) },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
        signal: AbortSignal.timeout(10_000),
    }).catch(() => null);
    const text = res ? await res.text() : '';
    let json: unknown;
    try {
        json = text ? JSON.parse(text) : undefined;
    } catch {
        json = undefined;
    }
    return { status: res?.status ?? 0, json };
}
