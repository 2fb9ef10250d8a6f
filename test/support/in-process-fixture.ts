/*
 * One in-process app with the shape of the spawned fixture (test/support/iobroker.ts), so a route test
 * moves into the test process by its set-up alone: `restart(native)` builds a new app with the config
 * changed on top of the previous one, as a restarted adapter would read its instance object.
 */
import type { Storage } from '../../scripts/embedded-storage';
import { createState, createUser, type HttpAnswer } from './iobroker';
import { encodeRequest, rawRequest } from './raw-request';
import type { InjectOptions, InProcessApp, InProcessHost } from './in-process';

export interface AppFixture {
    storage: Storage;
    /** The app on a loopback port; only with `serve` (for tests that need a socket). */
    readonly baseUrl: string;
    readonly app: InProcessApp;
    request(path: string, options?: InjectOptions): Promise<HttpAnswer>;
    createUser(name: string, acl: Record<string, Record<string, boolean>>, password?: string): Promise<string>;
    createState(id: string, common: Partial<ioBroker.StateCommon>, val?: ioBroker.StateValue): Promise<void>;
    /** Closes the app (pending polls, hooks and streams hear `{disconnect:true}`) and builds it again. */
    restart(native?: Record<string, unknown>): Promise<void>;
    close(): Promise<void>;
}

export interface FixtureOptions {
    /** Serve the app on a loopback port (`baseUrl`), for tests that need a socket. */
    serve?: boolean;
    /**
     * Send `request` over that socket too, as the spawned fixture did, for what only a socket gives: a
     * response's 'close' event (by which /metrics counts requests), and I/O turns between requests (a
     * tight loop of answers from memory would never let a change notification in).
     */
    socket?: boolean;
}

export async function appFixture(host: InProcessHost, native: Record<string, unknown> = {}, { socket = false, serve = socket }: FixtureOptions = {}): Promise<AppFixture> {
    let config = { ...native };
    let app = await host.app(config);
    let baseUrl = serve ? await app.serve() : '';
    return {
        storage: host.storage,
        get baseUrl() {
            if (!serve) {
                throw new Error('this fixture was made without serve');
            }
            return baseUrl;
        },
        get app() {
            return app;
        },
        request(path, options = {}) {
            if (socket) {
                const { headers, payload } = encodeRequest(options);
                return rawRequest(baseUrl + path, { method: options.method ?? 'GET', headers, body: payload });
            }
            // a client of the served app names its host as a real one does (answers that build URLs use it)
            const named = Object.keys(options.headers ?? {}).some(name => name.toLowerCase() === 'host');
            return app.request(path, serve && !named ? { ...options, headers: { Host: new URL(baseUrl).host, ...options.headers } } : options);
        },
        createUser: (name, acl, password) => createUser(host.storage, name, acl, password),
        createState: (id, common, val) => createState(host.storage, id, common, val),
        async restart(changed = {}) {
            await app.close();
            config = { ...config, ...changed };
            app = await host.app(config);
            baseUrl = serve ? await app.serve() : '';
        },
        close: () => app.close(),
    };
}
