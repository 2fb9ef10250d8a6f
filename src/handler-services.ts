import type { AclCache, PermissionEntry } from './access/rules';
import type { CredentialChecker } from './auth/credentials';
import type { Config } from './config';
import type { HookRegistry } from './events/hook-registry';
import type { PollingRegistry } from './events/polling';
import type { SseRegistry } from './events/sse';
import type { ChangeFeed } from './events/change-feed';
import type { CoherentCache } from './storage/cache/coherent-cache';
import type { ListingCache } from './storage/cache/listing-cache';
import type { ListingWalks } from './objects/listing-walks';
import type { NameIndex } from './storage/cache/name-index';
import type { Metrics } from './metrics/metrics';
import type { ApiTokens } from './auth/api-tokens';
import type { BruteForceGuard } from './auth/brute-force';
import type { ReceiverStore } from './webhooks/receivers';

/**
 * The shared services a command or route handler may use, besides the storage port it gets in its
 * context. The app's own parts (router, commands, docs, error reports) stay in AppServices.
 */
export interface HandlerServices {
    config: Config;
    /** Instance namespace, e.g. `rest-api.0`. */
    namespace: string;
    credentials: CredentialChecker;
    /** Each user's rights, from the group objects. */
    acls: AclCache;
    feed: ChangeFeed;
    /** Repeated reads from memory, kept coherent by change notifications (src/storage/cache/coherent-cache.ts). */
    stateCache: CoherentCache<ioBroker.State>;
    objectCache: CoherentCache<ioBroker.Object>;
    /** State listings of `prefix*` patterns for the admin. */
    listingCache: ListingCache;
    /** The ids of paged listing walks, so later pages read only theirs. */
    listingWalks: ListingWalks;
    /** Resolves once the state notifications published before the call were handled. */
    stateBarrier: () => Promise<void>;
    polling: PollingRegistry;
    hooks: HookRegistry;
    /** Server-sent event streams of `/v1/events`. */
    sse: SseRegistry;
    names: NameIndex;
    /** Adapter name and version, for `getVersion` and the docs. */
    adapterName: string;
    version: string;
    /** What each served command and route needs (`listPermissions`), derived from both at start. */
    permissions: Readonly<Record<string, PermissionEntry>>;
    /** The OpenAPI document, built once at start from routes and commands. */
    openapi: Record<string, unknown>;
    /** Request, event and process metrics for `/metrics` (prom-client). */
    metrics: Metrics;
    /** Inbound webhook receivers and the states they write. */
    receivers: ReceiverStore;
    /** API tokens: issued, listed, revoked, and verified for every Bearer request that carries one. */
    tokens: ApiTokens;
    /** Damps guessing of webhook secrets, per address. */
    webhookGuard: BruteForceGuard;
    /** False while js-controller's storage connection is down (only known in the standalone process). */
    storageUp(): boolean;
}
