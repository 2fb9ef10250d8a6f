// first: bounds V8's young generation before the modules below are loaded
import './instance/heap-first';
import type { Server } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import * as utils from '@iobroker/adapter-core';
import { createApp } from './app/app';
import type { AppServices } from './app/app-services';
import { configMistakes, normalizeConfig, type Config } from './instance/config';
import { close, createServer, listen, type Certificates } from './http/server';
import { closeEvents, forwardChange, startEvents } from './app/lifecycle';
import { sentryReporter } from './instance/error-reports';
import { createServices } from './app/services';
import { warnOnFailure } from './instance/warn-on-failure';
import { PACKAGE_ROOT } from './http/static-files';
import { StorageLink } from './storage/link-state';
import { giveUpAfter, reportLink } from './storage/link-report';

/** How long the adapter waits for a lost database (a Redis restart or a Sentinel failover take seconds). */
const DATABASE_LOST_LIMIT_MS = 15_000;

class RestApi extends utils.Adapter {
    private server: Server | null = null;
    private readonly link: StorageLink;
    private services: AppServices | null = null;
    private onChange: {
        state(id: string, s: ioBroker.State | null | undefined): void;
        object(id: string, o: ioBroker.Object | null | undefined): void;
    } | null = null;

    constructor(options: Partial<utils.AdapterOptions> = {}) {
        // dirname: the adapter is not installed under node_modules when run from its own folder.
        // strictObjectChecks off: every write would read its object again only to log type warnings,
        // and our routes already convert values by the object's type
        super({ ...options, name: 'rest-api', dirname: PACKAGE_ROOT, strictObjectChecks: false });
        this.link = new StorageLink(this);
        // this.log exists only once js-controller has connected: looked up when the link changes
        reportLink(this.link, {
            log: { warn: message => this.log.warn(message), info: message => this.log.info(message) },
            setConnection: up => this.setStateAsync('info.connection', up && !!this.server, true),
        });
        giveUpAfter(this.link, DATABASE_LOST_LIMIT_MS, this, () => {
            this.log.error(`No connection to the ioBroker database for ${DATABASE_LOST_LIMIT_MS / 1000} s: stopping`);
            this.server?.close();
            this.server?.closeAllConnections();
            this.terminate('no database', utils.EXIT_CODES.NO_CONNECTION_TO_STATES_DB);
        });
        this.on('ready', () => this.start().catch(err => this.fail(err)));
        this.on('stateChange', (id, state) => this.onChange?.state(id, state));
        this.on('objectChange', (id, obj) => this.onChange?.object(id, obj));
        this.on('unload', callback => this.stopServer().finally(() => callback()));
    }

    private async start(): Promise<void> {
        const config = normalizeConfig(this.config as Record<string, unknown>);
        if (config.webInstance) {
            this.log.info(`Runs as a part of web service ${config.webInstance}; no own server is started`);
            await this.setForeignStateAsync(`system.adapter.${this.namespace}.alive`, false, true);
            this.terminate(utils.EXIT_CODES.ADAPTER_REQUESTED_TERMINATION);
            return;
        }
        const mistakes = configMistakes(this.config as Record<string, unknown>);
        if (mistakes.length) {
            // like a port in use: said once, and the instance waits for a corrected configuration
            mistakes.forEach(mistake => this.log.error(`Configuration mistake, not serving: ${mistake}`));
            return;
        }
        const errors = sentryReporter(() => this.getPluginInstance('sentry'));
        const { services, routes } = createServices({ adapter: this, config, link: this.link, errors });
        this.services = services;
        this.onChange = {
            state: (id, state) => forwardChange(services, 'state', id, state),
            object: (id, obj) => forwardChange(services, 'object', id, obj),
        };
        const app = createApp(services, routes);
        this.server = createServer(config, app.handle, await this.certificates(config));
        try {
            await listen(this.server, config.port, config.bind);
        } catch (err) {
            // a config mistake: say so once and wait for a new config instead of crashing in a loop
            this.log.error(`Cannot listen on ${config.bind}:${config.port}: ${(err as Error).message}`);
            this.server = null;
            return;
        }
        await startEvents(services);
        const shapeProblems = this.link.checkShape();
        if (shapeProblems.length) {
            this.log.warn(
                `Caches off, every read goes to the database: js-controller's database clients are not as this version knows them (${shapeProblems.join('; ')})`,
            );
        }
        if (config.secure) {
            await services.events.feed.listen(
                'object',
                'system.certificates',
                () => void this.reloadCertificates(config),
            );
        }
        await this.setStateAsync('info.connection', true, true);
        const protocol = config.secure ? 'https' : 'http';
        const host = config.bind === '0.0.0.0' || !config.bind ? '127.0.0.1' : config.bind;
        this.log.info(
            `REST API listening on ${protocol}://${host}:${config.port}/ (auth ${config.auth ? 'on' : 'off'}, standalone)`,
        );
    }

    private async certificates(config: Config): Promise<Certificates | undefined> {
        if (!config.secure) {
            return undefined;
        }
        try {
            const [certs] = await this.getCertificatesAsync(
                config.certPublic || 'defaultPublic',
                config.certPrivate || 'defaultPrivate',
                config.certChained || undefined,
            );
            return { key: certs.key, cert: certs.cert, ca: certs.ca };
        } catch (err) {
            throw new Error(`HTTPS is on but no certificate could be loaded: ${(err as Error).message}`);
        }
    }

    /** Renewed certificates (e.g. by the ACME adapter) take effect for new connections, without a restart. */
    private async reloadCertificates(config: Config): Promise<void> {
        try {
            const certs = await this.certificates(config);
            (this.server as HttpsServer | null)?.setSecureContext(certs!);
            this.log.info('Certificates reloaded');
        } catch (err) {
            this.log.warn(`Keeping the old certificates: ${(err as Error).message}`);
        }
    }

    private fail(err: unknown): void {
        this.log.error(`Cannot start: ${(err as Error).message}`);
        this.terminate(utils.EXIT_CODES.ADAPTER_REQUESTED_TERMINATION);
    }

    /** Pending polls, hooks and event streams hear `{disconnect:true}` before the port closes. */
    private async stopServer(): Promise<void> {
        if (this.services) {
            await closeEvents(this.services);
        }
        if (this.server) {
            await close(this.server);
            this.server = null;
        }
        await this.setStateAsync('info.connection', false, true).catch(
            warnOnFailure(this.log, 'Clearing info.connection on unload'),
        );
    }
}

if (require.main !== module) {
    // compact mode: js-controller creates the instance itself
    module.exports = (options: Partial<utils.AdapterOptions> | undefined) => new RestApi(options);
} else {
    (() => new RestApi())();
}
