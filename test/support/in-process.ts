/*
 * The app in this test process: js-controller's DB servers and one adapter-core adapter (compact
 * mode, as js-controller runs adapters in one process) bound to a data dir of its own, and apps built
 * on that adapter's port with any instance config. Requests go into `app.handle` without a socket
 * (light-my-request), or through a real http(s) server on a loopback port where TLS matters.
 * No adapter process per test file and none per config: the big matrix tests live on this.
 */
import type { Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as utils from '@iobroker/adapter-core';
import { inject } from 'light-my-request';
import { createApp } from '../../src/app/app';
import type { AppServices } from '../../src/app/app-services';
import { normalizeConfig } from '../../src/instance/config';
import { closeEvents, forwardChange, startEvents } from '../../src/app/lifecycle';
import { close, createServer, listen } from '../../src/http/server';
import { createServices } from '../../src/app/services';
import { StorageLink } from '../../src/storage/link-state';
import { INSTANCE_ID, PROJECT_ROOT, startStorage, writeInstance, type Storage } from '../../scripts/embedded-storage';
import type { HttpAnswer, RequestOptions } from './iobroker';
import { encodeRequest, toAnswer } from './raw-request';
import { freePort } from './ports';
import { checkerFor, checkers, type ResponseChecker } from './response-check';
import { copySeed, ensureSeed } from './seed';

export interface InjectOptions extends RequestOptions {
    /** The client's address as the app sees it (brute-force damping counts per address). */
    remoteAddress?: string;
}

export interface InProcessApp {
    services: AppServices;
    /** One request through `app.handle`, no socket; the answer is checked against the document. */
    request(path: string, options?: InjectOptions): Promise<HttpAnswer>;
    /** The same app on a loopback port, over TLS with the instance's certificates when `secure` is set. */
    serve(): Promise<string>;
    close(): Promise<void>;
}

export interface InProcessHost {
    storage: Storage;
    adapter: ioBroker.Adapter;
    /** The link watching the adapter's database clients, as main.ts makes it. */
    link: StorageLink;
    /**
     * An app with this instance config on the shared adapter; each has its own caches, sessions and
     * limits. `namespace`: serve as another instance (e.g. `rest-api.1`) on the same databases.
     */
    app(native?: Record<string, unknown>, namespace?: string): Promise<InProcessApp>;
    stop(): Promise<void>;
}

function waitReady(adapter: ioBroker.Adapter): Promise<void> {
    return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('the in-process adapter did not get ready within 20 s')), 20_000);
        adapter.once('ready', () => {
            clearTimeout(timer);
            resolve();
        });
    });
}

async function injected(services: AppServices, handle: ReturnType<typeof createApp>['handle'], checker: ResponseChecker, path: string, options: InjectOptions): Promise<HttpAnswer> {
    const { method = 'GET', remoteAddress = '127.0.0.1' } = options;
    const { headers, payload } = encodeRequest(options);
    const res = await inject(handle, { method: method as 'GET', url: path, headers, payload, remoteAddress });
    const answer = toAnswer(res.statusCode, res.headers, res.payload);
    const problem = checker.problem(method, path, answer);
    if (problem) {
        throw new Error(`Response outside the contract (${services.meta.namespace}): ${problem}`);
    }
    return answer;
}

export async function startInProcess(): Promise<InProcessHost> {
    const dataDir = mkdtempSync(join(tmpdir(), 'rest-api-inproc-'));
    await ensureSeed();
    copySeed(dataDir);
    const storage = await startStorage({ dataDir, objectsPort: await freePort(), statesPort: await freePort() });
    await writeInstance(storage, { bind: '127.0.0.1' });
    // compact: a stop ends in an 'exit' event instead of process.exit, as when js-controller hosts it
    const adapter = new utils.Adapter({ name: 'rest-api', dirname: PROJECT_ROOT, compact: true, compactInstance: 0, strictObjectChecks: false } as never);
    // as main.ts does: watched from the start, so caches and /metrics see a storage outage
    const link = new StorageLink(adapter);
    await waitReady(adapter);
    const apps = new Set<AppServices>();
    adapter.on('stateChange', (id, state) => apps.forEach(services => forwardChange(services, 'state', id, state)));
    adapter.on('objectChange', (id, obj) => apps.forEach(services => forwardChange(services, 'object', id, obj)));
    const instance = await storage.objects.getObjectAsync(INSTANCE_ID);

    return {
        storage,
        adapter,
        link,
        async app(native = {}, namespace) {
            const config = normalizeConfig({ ...instance.native, bind: '127.0.0.1', ...native });
            const { services, routes } = createServices({ adapter, config, namespace, link });
            const app = createApp(services, routes);
            const checker = checkerFor({ ...instance.native, ...native });
            apps.add(services);
            await startEvents(services);
            let server: Server | null = null;
            return {
                services,
                request: (path, options = {}) => injected(services, app.handle, checker, path, options),
                async serve() {
                    if (!server) {
                        const certs = config.secure ? (await adapter.getCertificatesAsync(config.certPublic || 'defaultPublic', config.certPrivate || 'defaultPrivate'))[0] : undefined;
                        const port = await freePort();
                        server = createServer({ ...config, port }, app.handle, certs && { key: certs.key, cert: certs.cert });
                        await listen(server, port, '127.0.0.1');
                        checkers.set(port, checker);
                    }
                    const { port } = server.address() as { port: number };
                    return `${config.secure ? 'https' : 'http'}://127.0.0.1:${port}`;
                },
                async close() {
                    apps.delete(services);
                    await closeEvents(services);
                    if (server) {
                        checkers.delete((server.address() as { port: number }).port);
                        await close(server);
                    }
                },
            };
        },
        async stop() {
            const exited = new Promise<void>(resolve => {
                adapter.once('exit' as never, () => resolve());
                setTimeout(resolve, 5_000).unref();
            });
            adapter.stop?.();
            await exited;
            await storage.close();
            rmSync(dataDir, { recursive: true, force: true });
        },
    };
}
