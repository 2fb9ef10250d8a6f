/*
 * Web-extension mode: the ioBroker web adapter loads this module (io-package.json
 * `common.webExtension`) for each rest-api instance whose `webInstance` names it, and mounts the same
 * routes under /rest-api/ on its own server. The standalone process then stays down (src/main.ts).
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createApp, type App } from './app/app';
import type { AppServices } from './app/app-services';
import { configMistakes, normalizeConfig } from './instance/config';
import { closeEvents, forwardChange, startEvents } from './app/lifecycle';
import { EXTENSION_PREFIX } from './routing/router';
import { createServices } from './app/services';
import { warnOnFailure } from './instance/warn-on-failure';

export const BASE_PATH = EXTENSION_PREFIX;

/** What web passes as its settings; only `auth` matters here. */
interface WebSettings {
    auth?: boolean;
    secure?: boolean;
    port?: number;
    defaultUser?: string;
}

type Next = (err?: unknown) => void;

/** The part of web's (express) app the extension uses. */
interface WebApp {
    use(handler: (req: IncomingMessage, res: ServerResponse, next: Next) => void): unknown;
}

/** Web's auth middleware stores the user name on the request. */
function webUser(req: IncomingMessage): string | undefined {
    const user = (req as IncomingMessage & { user?: unknown }).user;
    if (typeof user !== 'string' || !user) {
        return undefined;
    }
    return user.startsWith('system.user.') ? user : `system.user.${user}`;
}

export default class RestApiExtension {
    private readonly services: AppServices;
    private readonly app: App;
    private readonly ready: Promise<void>;

    /** The constructor web calls: (server, webSettings, webAdapter, restApiInstanceObject, app). */
    constructor(
        _server: Server,
        webSettings: WebSettings,
        private readonly adapter: ioBroker.Adapter,
        instance: ioBroker.InstanceObject,
        webApp: WebApp,
    ) {
        const namespace = instance._id.replace(/^system\.adapter\./, '');
        const config = normalizeConfig(instance.native ?? {});
        const { services, routes } = createServices({
            adapter,
            config,
            basePath: BASE_PATH,
            namespace,
            identify: webSettings?.auth ? webUser : undefined,
        });
        this.services = services;
        this.app = createApp(services, routes);
        const prefix = `${BASE_PATH}/`;
        const mistakes = configMistakes(instance.native ?? {});
        // as the standalone process: said once, nothing served until the configuration is corrected
        mistakes.forEach(mistake =>
            adapter.log.error(`REST API ${namespace}: configuration mistake, not serving: ${mistake}`),
        );
        webApp.use((req, res, next) => {
            const url = req.url ?? '';
            if (!mistakes.length && (url === BASE_PATH || url.startsWith(prefix) || url.startsWith(`${BASE_PATH}?`))) {
                this.app.handle(req, res);
            } else {
                next();
            }
        });
        this.ready = this.start(namespace);
    }

    private async start(namespace: string): Promise<void> {
        try {
            await startEvents(this.services);
            await this.adapter.setForeignStateAsync(`${namespace}.info.extension`, true, true);
            this.adapter.log.info(
                `REST API ${namespace} mounted under ${BASE_PATH}/ (auth ${this.services.identify ? 'by web' : this.services.meta.config.auth ? 'on' : 'off'}, web extension)`,
            );
        } catch (err) {
            this.adapter.log.warn(`REST API ${namespace}: ${(err as Error).message}`);
        }
    }

    /** Web forwards the changes of everything subscribed through its adapter. */
    stateChange(id: string, state: ioBroker.State | null | undefined): void {
        forwardChange(this.services, 'state', id, state);
    }

    objectChange(id: string, obj: ioBroker.Object | null | undefined): void {
        forwardChange(this.services, 'object', id, obj);
    }

    waitForReady(callback: () => void): void {
        void this.ready.then(callback);
    }

    welcomePage(): Record<string, unknown> {
        return {
            link: 'rest-api/',
            name: 'REST-API',
            img: 'adapter/rest-api/rest-api.png',
            color: '#157c00',
            order: 10,
            pro: false,
        };
    }

    async unload(): Promise<void> {
        await closeEvents(this.services);
        await this.adapter
            .setForeignStateAsync(`${this.services.meta.namespace}.info.extension`, false, true)
            .catch(warnOnFailure(this.adapter.log, 'Clearing info.extension on unload'));
    }
}

// web requires the file and takes `default` when present; a plain require gets the class too
module.exports = RestApiExtension;
module.exports.default = RestApiExtension;
