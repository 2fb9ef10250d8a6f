import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AclCache } from '../access/rules';
import { ApiTokens } from '../auth/api-tokens';
import { linkedGuards } from '../auth/shared-guard';
import { watchPeers } from '../storage/peers';
import { objectsBelow } from '../storage/objects-below';
import { tokenOf } from '../access/owner';
import { loginSessions } from '../auth/tokens';
import { CredentialChecker } from '../auth/credentials';
import type { AppServices } from './app-services';
import type { Command } from '../command-runtime/command';
import type { Config } from '../instance/config';
import { HookRegistry, stateHookStore } from '../events/hook-registry';
import { EventAccess } from '../events/event-access';
import { EventStats } from '../events/event-stats';
import { Metrics } from '../metrics/metrics';
import { ReceiverStore } from '../webhooks/receivers';
import { PollingRegistry } from '../events/polling';
import { sharePolling } from '../events/polling-share';
import { SSE_DEFAULTS, SseRegistry } from '../events/sse';
import { SseLog } from '../events/sse-log';
import { ChangeFeed } from '../storage/change-feed';
import { CoherentCache } from '../storage/cache/coherent-cache';
import { ListingWalks } from '../objects/listing-walks';
import { ListingCache } from '../storage/cache/listing-cache';
import { sharedBarrier } from '../storage/cache/shared-barrier';
import type { StorageLink } from '../storage/link-state';
import { NameIndex } from '../storage/cache/name-index';
import { hookPolicy } from '../messaging/target-guard';
import { loadCommands } from '../command-runtime/load-commands';
import { batchedStateReader } from '../storage/state-read';
import { noReports, type ErrorReporter } from '../instance/error-reports';
import { buildOpenApi } from '../routing/openapi';
import { permissionTable } from '../routing/permissions-table';
import { adapterStorage } from '../storage/adapter-storage';
import type { Route } from '../routing/route';
import { restRoutes } from '../routes';
import { precompile } from '../command-runtime/run-command';
import { PACKAGE_ROOT } from '../http/static-files';

export const PACKAGE_VERSION: string = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')).version;

/** The commands this instance serves, after `noCommands` and `noAdminCommands`. */
export function servedCommands(all: ReadonlyMap<string, Command>, config: Config): ReadonlyMap<string, Command> {
    if (config.noCommands) {
        return new Map();
    }
    return new Map([...all].filter(([, cmd]) => !(config.noAdminCommands && cmd.adminOnly)));
}

export interface ServiceOptions {
    adapter: ioBroker.Adapter;
    config: Config;
    basePath?: string;
    /** The rest-api instance, e.g. `rest-api.0`; defaults to the adapter's (inside web it is web's). */
    namespace?: string;
    /** Inside the web adapter with its auth on: the user web authenticated. */
    identify?: AppServices['identify'];
    /** Watches js-controller's notification connections (standalone process only). */
    link?: StorageLink;
    /** Loaded once per process; defaults to the commands folder. */
    commands?: ReadonlyMap<string, Command>;
    /** Where code errors of requests go; none by default. */
    errors?: ErrorReporter;
}

/** Wires the request-independent parts together. Throws when a command file is malformed. */
export function createServices({
    adapter,
    config,
    basePath = '',
    commands,
    link,
    namespace = adapter.namespace,
    identify,
    errors = noReports,
}: ServiceOptions): { services: AppServices; routes: Route[] } {
    const served = servedCommands(commands ?? loadCommands(), config);
    precompile(served.values());
    const routes = restRoutes(config);
    const storage = adapterStorage(adapter);
    const feed = new ChangeFeed(storage);
    const events = new EventStats();
    const hookSettings = {
        stats: events,
        hookTimeout: config.hookTimeout,
        targets: hookPolicy(config.hooksAllowLinkLocal),
        maxFailures: config.hookMaxFailures,
        retryBaseMs: config.hookRetryMs,
        timers: adapter,
    };
    const acls = new AclCache(async () => (await objectsBelow(storage, 'system.group.', 'group')) as never);
    // an API token's sessions and hooks see what the token may see now: nothing once it is revoked
    const aclOf = (owner: string) => {
        const ref = tokenOf(owner);
        return ref ? tokens.aclOf(ref) : acls.get(owner);
    };
    // other instances on this database: their writes and their failed logins count here too
    const peers = watchPeers(storage, feed, namespace, adapter);
    const guards = linkedGuards(storage, feed, namespace);
    const access = new EventAccess(
        feed,
        aclOf,
        id => storage.getForeignObjectAsync(id),
        config.onlyAllowWhenUserIsOwner,
    );
    const barrierId = `${namespace}.cacheBarrier`;
    const stateBarrier = sharedBarrier(() => storage.subscribeForeignStatesAsync(barrierId), adapter);
    const objectBarrier = sharedBarrier(() => storage.subscribeForeignObjectsAsync(barrierId), adapter);
    // without a link (inside the web adapter) the caches trust js-controller's reconnects
    const connected = (): boolean => link?.up !== false;
    // a link that cannot see outages (js-controller's clients changed shape) vouches for no cache
    const cachesUsable = (): boolean => connected() && link?.trusted !== false;
    const { sourceFor } = access;
    link?.on('change', (up: boolean) => {
        if (up) {
            // an instance that died during the outage was announced to no one
            void peers.refresh();
        }
        // notifications published while disconnected are lost: nothing cached can be trusted, rights neither
        acls.invalidate();
        access.forget();
        stateCache.clear();
        objectCache.clear();
        listingCache.clear();
    });
    const stateCache = new CoherentCache<ioBroker.State>({
        shared: peers.any,
        kind: 'state',
        feed,
        read: batchedStateReader(storage),
        barrier: stateBarrier,
        connected: cachesUsable,
    });
    const objectCache = new CoherentCache<ioBroker.Object>({
        shared: peers.any,
        kind: 'object',
        feed,
        read: id => storage.getForeignObjectAsync(id),
        barrier: objectBarrier,
        connected: cachesUsable,
        // objects change rarely and every state read needs its object: many more, one subscription for all
        maxEntries: 10_000,
        maxBytes: 24 * 1024 * 1024,
        watchAll: true,
    });
    const tokens = new ApiTokens(storage, namespace, objectCache, acls, guards.guard('token'));
    const listingCache = new ListingCache({
        shared: peers.any,
        feed,
        read: async pattern => (await storage.getForeignStatesAsync(pattern)) ?? {},
        barrier: async () => {
            await Promise.all([stateBarrier(), objectBarrier()]);
        },
        connected: cachesUsable,
    });
    // own writes pass through the port: the caches learn of them without waiting for a notification
    storage.onWrite(({ kind, id, recursive }) => {
        if (recursive) {
            // children went too: cheaper to start over than to find them
            stateCache.clear();
            objectCache.clear();
            listingCache.clear();
            return;
        }
        (kind === 'state' ? stateCache : objectCache).written(id);
        listingCache.written(id);
    });
    const polling = new PollingRegistry(
        sourceFor,
        adapter,
        { perUser: config.limits.pollSessionsPerUser, total: config.limits.pollSessionsTotal },
        events,
    );
    const pollingShare = sharePolling({
        registry: polling,
        storage,
        feed,
        namespace,
        peers,
        barrier: stateBarrier,
        timers: adapter,
    });
    polling.shareWith(pollingShare);
    // every instance on this database holds every hook; one delivers it (src/events/hook-sharing.ts)
    const hooks = new HookRegistry(
        sourceFor,
        hookSettings,
        stateHookStore(storage, namespace, feed, peers),
        { perUser: config.limits.hooksPerUser, total: config.limits.hooksTotal },
        { self: namespace, peers, barrier: stateBarrier },
    );
    const sse = new SseRegistry(
        sourceFor,
        adapter,
        {
            ...SSE_DEFAULTS,
            streamsPerUser: config.limits.sseStreamsPerUser,
            streamsTotal: config.limits.sseStreamsTotal,
        },
        events,
        // a client resumes its stream on any instance of this database, or on this one after a restart
        { log: new SseLog(storage, namespace, adapter), mayRead: access.mayRead, peersAlive: () => peers.alive() },
    );
    const sessionStore = { storage, objectCache };
    const services: AppServices = {
        storage,
        sessionStore,
        identify,
        commands: served,
        basePath,
        errors,
        startSharing: async () => {
            await peers.start();
            await guards.start();
            await pollingShare.start();
        },
        data: {
            port: storage,
            states: stateCache,
            objects: objectCache,
            listings: listingCache,
            names: new NameIndex(async () => {
                const view = await storage.getObjectViewAsync('system', 'state', {});
                return view.rows.map(row => ({ id: row.id, name: row.value?.common?.name }));
            }),
            acls,
        },
        events: {
            feed,
            stateBarrier,
            polling,
            hooks,
            sse,
            receivers: new ReceiverStore(storage, namespace),
            webhookGuard: guards.guard('webhook'),
        },
        auth: {
            acls,
            credentials: new CredentialChecker(storage, guards.guard('password')),
            tokens,
            sessions: loginSessions(sessionStore),
        },
        meta: {
            config,
            namespace,
            adapterName: 'rest-api',
            version: PACKAGE_VERSION,
            storageUp: connected,
            timers: adapter,
            permissions: permissionTable(served.values(), routes),
            // inside web with its auth on, web asks for the credentials: the document says so too
            openapi: buildOpenApi({
                routes,
                commands: served.values(),
                version: PACKAGE_VERSION,
                basePath,
                auth: config.auth || !!identify,
            }),
            metrics: new Metrics({
                storageUp: connected,
                open: () => ({ polling: polling.size, hooks: hooks.size, sse: sse.openStreams }),
                events,
            }),
            get host() {
                return storage.host;
            },
            get log() {
                return storage.log;
            },
            supportsFeature: feature => !!storage.supportsFeature(feature as ioBroker.SupportedFeature),
        },
        walks: new ListingWalks(),
    };
    return { services, routes };
}
