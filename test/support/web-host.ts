/*
 * Stands in for the ioBroker web adapter where the real one (test/real-web.test.ts) cannot show what a
 * test needs: web's adapter object inspected inside web's process before, during and after the
 * extension is mounted, and a request that reaches the extension without a user. A real js-controller
 * adapter named `web`, a real http server, and every rest-api instance that names it loaded by web's
 * extension contract (constructor arguments, waitForReady, stateChange/objectChange, unload). With
 * auth on, a Basic check runs first and puts the user name on the request, as web does; a request
 * marked `x-web-host-open: 1` reaches the extensions without one. Compression, body parsers and the
 * login page are the real web's, tested there.
 * argv: port, auth (true|false), adapter dir (with an io-package.json of `web`).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import * as utils from '@iobroker/adapter-core';
import { PROJECT_ROOT } from '../../scripts/embedded-storage';

type Handler = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;
interface Extension {
    waitForReady(cb: () => void): void;
    stateChange(id: string, state: unknown): void;
    objectChange(id: string, obj: unknown): void;
    welcomePage(): unknown;
    unload(): Promise<void>;
}

const [port, authArg, dirname] = process.argv.slice(2);
const auth = authArg === 'true';
const adapter = new utils.Adapter({ name: 'web', dirname });
const handlers: Handler[] = [];
const extensions: Extension[] = [];

async function webAuth(req: IncomingMessage): Promise<boolean> {
    const [scheme, value = ''] = (req.headers.authorization ?? '').split(' ');
    if (scheme !== 'Basic') {
        return false;
    }
    const [user, password] = Buffer.from(value, 'base64').toString().split(':');
    const ok = await new Promise<boolean>(resolve =>
        adapter.checkPassword(user, password ?? '', {}, success => resolve(!!success)),
    );
    if (ok) {
        (req as IncomingMessage & { user?: string }).user = user;
    }
    return ok;
}

const server = createServer((req, res) => {
    void (async () => {
        // `x-web-host-open: 1` stands in for what web lets through without a user (paths it leaves open)
        if (auth && req.headers['x-web-host-open'] !== '1' && !(await webAuth(req))) {
            res.writeHead(401, { 'Content-Type': 'text/plain' });
            res.end('web: Unauthorized');
            return;
        }
        let index = 0;
        const next = (): void => {
            const handler = handlers[index++];
            if (handler) {
                handler(req, res, next);
            } else {
                res.writeHead(404, { 'Content-Type': 'text/plain' });
                res.end('web: not found');
            }
        };
        next();
    })();
});

/** Every method of web's adapter object as it is now, and how its own properties are defined. */
function snapshot(): Map<string, unknown> {
    const seen = new Map<string, unknown>();
    for (
        let proto: object | null = adapter;
        proto && proto !== Object.prototype;
        proto = Object.getPrototypeOf(proto)
    ) {
        for (const name of Object.getOwnPropertyNames(proto)) {
            const descriptor = Object.getOwnPropertyDescriptor(proto, name)!;
            if (!seen.has(name) && (typeof descriptor.value === 'function' || descriptor.get || descriptor.set)) {
                seen.set(name, descriptor.value ?? descriptor.get ?? descriptor.set);
            }
        }
    }
    for (const name of Object.getOwnPropertyNames(adapter)) {
        const descriptor = Object.getOwnPropertyDescriptor(adapter, name)!;
        seen.set(
            `own:${name}`,
            descriptor.get
                ? `getter ${String(descriptor.get)}`
                : typeof descriptor.value === 'function'
                  ? descriptor.value
                  : 'data',
        );
    }
    return seen;
}
let original = new Map<string, unknown>();
/** Names whose method or definition differs from before any extension was loaded. */
function changedMembers(): string[] {
    const now = snapshot();
    const names = new Set([...original.keys(), ...now.keys()]);
    // own data members (web's state) may change; methods and accessors must not
    return [...names].filter(
        name => now.get(name) !== original.get(name) && !(now.get(name) === 'data' && original.has(name)),
    );
}
// answered by web itself: whether loading rest-api changed web's adapter object
handlers.push((req, res, next) => {
    if (req.url !== '/web-host/changed') {
        return next();
    }
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(changedMembers()));
});

adapter.on('ready', async () => {
    original = snapshot();
    const io = require(join(PROJECT_ROOT, 'io-package.json')); // eslint-disable-line @typescript-eslint/no-require-imports
    const loaded = require(join(PROJECT_ROOT, io.common.webExtension)); // eslint-disable-line @typescript-eslint/no-require-imports
    const Ext = loaded.default ?? loaded;
    const view = await adapter.getObjectViewAsync('system', 'instance', {
        startkey: 'system.adapter.rest-api.',
        endkey: 'system.adapter.rest-api.\u9999',
    });
    for (const { value: instance } of view.rows) {
        if (instance?.native?.webInstance !== adapter.namespace && instance?.native?.webInstance !== '*') {
            continue;
        }
        const settings = { secure: false, port: Number(port), language: 'en', defaultUser: 'system.user.admin', auth };
        const extension: Extension = new Ext(server, settings, adapter, instance, {
            use: (h: Handler) => handlers.push(h),
        });
        await new Promise<void>(resolve => extension.waitForReady(resolve));
        extensions.push(extension);
        console.log(`welcome ${JSON.stringify(extension.welcomePage())}`);
    }
    server.listen(Number(port), '127.0.0.1', () => console.log(`web-host listening ${extensions.length}`));
});
adapter.on('stateChange', (id, state) => extensions.forEach(e => e.stateChange(id, state)));
adapter.on('objectChange', (id, obj) => extensions.forEach(e => e.objectChange(id, obj)));
adapter.on('unload', callback => {
    void Promise.all(extensions.map(e => e.unload())).finally(() => {
        console.log(`web-host changed after unload ${JSON.stringify(changedMembers())}`);
        server.closeAllConnections();
        server.close(() => callback());
    });
});
