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
import type { EventServices, MetaServices } from '../context/request-context';
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
import { DeviceCatalog } from '../objects/device-catalog';
import { ListingCache } from '../storage/cache/listing-cache';
import { sharedBarrier } from '../storage/cache/shared-barrier';
import type { StorageLink } from '../storage/link-state';
import type { Peers } from '../storage/peers';
import type { StoragePort } from '../storage/port';
import { HistorySettingsCache } from '../storage/cache/history-settings';
import { NameIndex } from '../storage/cache/name-index';
import type { DataStores } from '../storage/data';
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

/** What every part of the wiring is built on: the instance, its one port to js-controller, its change feed. */
interface Base {
    adapter: ioBroker.Adapter;
    config: Config;
    namespace: string;
    storage: StoragePort;
    feed: ChangeFeed;
    stats: EventStats;
}

/** The other instances on this database, and the round trips that wait for their notifications. */
interface Sharing {
    peers: Peers;
    guards: ReturnType<typeof linkedGuards>;
    stateBarrier: () => Promise<void>;
    objectBarrier: () => Promise<void>;
}

/** Whether js-controller's storage connection is up, and whether the caches may answer from memory. */
interface Health {
    connected: () => boolean;
    cachesUsable: () => boolean;
    /**
     * Whether the change feed's subscriptions are this adapter's own. Inside web they are web's, and web's
     * socket layer drops a pattern when its last client leaves (js-controller counts nobody's): what access
     * checks depend on is not held there.
     */
    ownSubscriptions: () => boolean;
}

interface Caches {
    states: CoherentCache<ioBroker.State>;
    objects: CoherentCache<ioBroker.Object>;
    listings: ListingCache;
    historySettings: HistorySettingsCache;
    clear(): void;
}

/** Each user's rights, API tokens, and the rights checks of events. */
interface Rights {
    acls: AclCache;
    tokens: ApiTokens;
    access: EventAccess;
}

/** The event services, and the share of polling with other instances, which the wiring starts. */
interface EventWiring {
    events: EventServices;
    pollingShare: ReturnType<typeof sharePolling>;
}

/** Wires the request-independent parts together. Throws when a command file is malformed. */
export function createServices(options: ServiceOptions): { services: AppServices; routes: Route[] } {
    const { adapter, config, link, basePath = '', identify, errors = noReports } = options;
    const served = servedCommands(options.commands ?? loadCommands(), config);
    precompile(served.values());
    const routes = restRoutes(config);
    const storage = adapterStorage(adapter);
    const namespace = options.namespace ?? adapter.namespace;
    const base: Base = { adapter, config, namespace, storage, feed: new ChangeFeed(storage), stats: new EventStats() };
    const sharing = shareWithPeers(base);
    const health = linkHealth(link);
    const caches = createCaches(base, sharing, health);
    const devices = new DeviceCatalog(storage, base.feed, health.cachesUsable, adapter, namespace);
    learnOwnWrites(storage, caches);
    const rights = createRights(base, sharing, caches);
    rights.access.useDevices(devices);
    forgetOnOutage(link, sharing.peers, rights, caches);
    // changes missed during an outage: detect again
    link?.on('change', () => devices.changed());
    const { events, pollingShare } = createEvents(base, sharing, rights.access);
    const sessionStore = { storage, objectCache: caches.objects };
    const services: AppServices = {
        storage,
        sessionStore,
        identify,
        commands: served,
        basePath,
        errors,
        startSharing: async () => {
            await sharing.peers.start();
            await sharing.guards.start();
            await pollingShare.start();
        },
        data: dataStores(storage, caches, rights.acls),
        events,
        auth: {
            acls: rights.acls,
            credentials: new CredentialChecker(storage, sharing.guards.guard('password')),
            tokens: rights.tokens,
            sessions: loginSessions(sessionStore),
        },
        meta: metaServices(base, { commands: served, routes, basePath, identify, connected: health.connected, events }),
        walks: new ListingWalks(),
        devices,
    };
    return { services, routes };
}

/** Other instances on this database: their writes and their failed logins count here too. */
function shareWithPeers({ adapter, storage, feed, namespace }: Base): Sharing {
    const barrierId = `${namespace}.cacheBarrier`;
    return {
        peers: watchPeers(storage, feed, namespace, adapter),
        guards: linkedGuards(storage, feed, namespace),
        stateBarrier: sharedBarrier(() => storage.subscribeForeignStatesAsync(barrierId), adapter),
        objectBarrier: sharedBarrier(() => storage.subscribeForeignObjectsAsync(barrierId), adapter),
    };
}

function linkHealth(link: StorageLink | undefined): Health {
    // without a link (inside the web adapter) the caches trust js-controller's reconnects
    const connected = (): boolean => link?.up !== false;
    // a link that cannot see outages (js-controller's clients changed shape) vouches for no cache
    const cachesUsable = (): boolean => connected() && link?.trusted !== false;
    return { connected, cachesUsable, ownSubscriptions: () => link !== undefined && cachesUsable() };
}

function createCaches(
    { storage, feed }: Base,
    { peers, stateBarrier, objectBarrier }: Sharing,
    health: Health,
): Caches {
    const usable = health.cachesUsable;
    const states = new CoherentCache<ioBroker.State>({
        shared: peers.any,
        kind: 'state',
        feed,
        read: batchedStateReader(storage),
        barrier: stateBarrier,
        connected: usable,
    });
    const objects = new CoherentCache<ioBroker.Object>({
        shared: peers.any,
        kind: 'object',
        feed,
        read: id => storage.getForeignObjectAsync(id),
        barrier: objectBarrier,
        connected: usable,
        // objects change rarely and every state read needs its object: many more, one subscription for all
        maxEntries: 10_000,
        maxBytes: 24 * 1024 * 1024,
        watchAll: true,
    });
    const listings = new ListingCache({
        shared: peers.any,
        feed,
        read: async pattern => (await storage.getForeignStatesAsync(pattern)) ?? {},
        barrier: async () => {
            await Promise.all([stateBarrier(), objectBarrier()]);
        },
        connected: usable,
    });
    const historySettings = new HistorySettingsCache(
        async () => (await storage.getObjectViewAsync('system', 'custom', {}))?.rows ?? [],
        feed,
        health.ownSubscriptions,
    );
    const clear = (): void => {
        states.clear();
        objects.clear();
        listings.clear();
        historySettings.clear();
    };
    return { states, objects, listings, historySettings, clear };
}

/** Own writes pass through the port: the caches learn of them without waiting for a notification. */
function learnOwnWrites(storage: StoragePort, caches: Caches): void {
    storage.onWrite(({ kind, id, recursive }) => {
        if (recursive) {
            // children went too: cheaper to start over than to find them
            caches.clear();
            return;
        }
        (kind === 'state' ? caches.states : caches.objects).written(id);
        caches.listings.written(id);
        if (kind === 'object') {
            caches.historySettings.clear();
        }
    });
}

function createRights({ storage, feed, namespace, config }: Base, { guards }: Sharing, caches: Caches): Rights {
    const acls = new AclCache(async () => (await objectsBelow(storage, 'system.group.', 'group')) as never);
    const tokens = new ApiTokens(storage, namespace, caches.objects, acls, guards.guard('token'));
    // an API token's sessions and hooks see what the token may see now: nothing once it is revoked
    const aclOf = (owner: string) => {
        const ref = tokenOf(owner);
        return ref ? tokens.aclOf(ref) : acls.get(owner);
    };
    const access = new EventAccess(
        feed,
        aclOf,
        id => storage.getForeignObjectAsync(id),
        config.onlyAllowWhenUserIsOwner,
    );
    return { acls, tokens, access };
}

/** Notifications published while disconnected are lost: nothing cached can be trusted, rights neither. */
function forgetOnOutage(link: StorageLink | undefined, peers: Peers, rights: Rights, caches: Caches): void {
    link?.on('change', (up: boolean) => {
        if (up) {
            // an instance that died during the outage was announced to no one
            void peers.refresh();
        }
        rights.acls.invalidate();
        rights.access.forget();
        caches.clear();
    });
}

/** Polling, URL hooks and event streams, each shared with the other instances on this database. */
function createEvents(base: Base, sharing: Sharing, access: EventAccess): EventWiring {
    const { adapter, config, storage, feed, namespace, stats } = base;
    const { peers, stateBarrier } = sharing;
    const { sourceFor } = access;
    const polling = new PollingRegistry(
        sourceFor,
        adapter,
        { perUser: config.limits.pollSessionsPerUser, total: config.limits.pollSessionsTotal },
        stats,
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
    const hookSettings = {
        stats,
        hookTimeout: config.hookTimeout,
        targets: hookPolicy(config.hooksAllowLinkLocal),
        maxFailures: config.hookMaxFailures,
        retryBaseMs: config.hookRetryMs,
        timers: adapter,
    };
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
        stats,
        // a client resumes its stream on any instance of this database, or on this one after a restart
        { log: new SseLog(storage, namespace, adapter), mayRead: access.mayRead, peersAlive: () => peers.alive() },
    );
    const events: EventServices = {
        feed,
        stateBarrier,
        polling,
        hooks,
        sse,
        receivers: new ReceiverStore(storage, namespace),
        webhookGuard: sharing.guards.guard('webhook'),
    };
    return { events, pollingShare };
}

function dataStores(storage: StoragePort, caches: Caches, acls: AclCache): DataStores {
    return {
        port: storage,
        states: caches.states,
        objects: caches.objects,
        listings: caches.listings,
        historySettings: caches.historySettings,
        names: new NameIndex(async () => {
            const view = await storage.getObjectViewAsync('system', 'state', {});
            return view.rows.map(row => ({ id: row.id, name: row.value?.common?.name }));
        }),
        acls,
    };
}

/** What the instance is and serves, built once from the commands and routes it serves. */
function metaServices(
    { adapter, config, namespace, storage, stats }: Base,
    served: {
        commands: ReadonlyMap<string, Command>;
        routes: Route[];
        basePath: string;
        identify: AppServices['identify'];
        connected: () => boolean;
        events: EventServices;
    },
): MetaServices {
    const { commands, routes, connected } = served;
    const { polling, hooks, sse } = served.events;
    return {
        config,
        namespace,
        adapterName: 'rest-api',
        version: PACKAGE_VERSION,
        storageUp: connected,
        timers: adapter,
        permissions: permissionTable(commands.values(), routes),
        // inside web with its auth on, web asks for the credentials: the document says so too
        openapi: buildOpenApi({
            routes,
            commands: commands.values(),
            version: PACKAGE_VERSION,
            basePath: served.basePath,
            auth: config.auth || !!served.identify,
        }),
        metrics: new Metrics({
            storageUp: connected,
            open: () => ({ polling: polling.size, hooks: hooks.size, sse: sse.openStreams }),
            events: stats,
        }),
        get host() {
            return storage.host;
        },
        get log() {
            return storage.log;
        },
        supportsFeature: feature => !!storage.supportsFeature(feature as ioBroker.SupportedFeature),
    };
}
