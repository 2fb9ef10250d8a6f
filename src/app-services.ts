import type { AclCache } from './acl';
import type { CredentialChecker } from './auth/credentials';
import type { Command } from './command';
import type { Config } from './config';
import type { ErrorReporter } from './error-reports';
import type { HookRegistry } from './events/hook-registry';
import type { PollingRegistry } from './events/polling';
import type { SseRegistry } from './events/sse';
import type { ChangeFeed } from './lib/change-feed';
import type { ListingCache } from './lib/listing-cache';
import type { ListingWalks } from './lib/listing-walks';
import type { CoherentCache } from './lib/coherent-cache';
import type { NameIndex } from './lib/name-index';
import type { StoragePort } from './storage/port';

/** Request-independent parts, built once at start and shared by every request. */
export interface AppServices {
    /** js-controller, through the one port; handlers never see the adapter itself. */
    storage: StoragePort;
    config: Config;
    /** Instance namespace, e.g. `rest-api.0`. */
    namespace: string;
    /** Inside the web adapter with its auth on: the user web authenticated (requests run as this user). */
    identify?: (req: import('node:http').IncomingMessage) => string | undefined;
    /** Adapter name and version, for `getVersion` and the docs. */
    adapterName: string;
    version: string;
    acls: AclCache;
    credentials: CredentialChecker;
    feed: ChangeFeed;
    /** False while js-controller's storage connection is down (only known in the standalone process). */
    storageUp(): boolean;
    /** Repeated reads from memory, kept coherent by change notifications (src/lib/coherent-cache.ts). */
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
    /** Commands served under `/v1/command`, after `noCommands` / `noAdminCommands`. */
    commands: ReadonlyMap<string, Command>;
    /** `''` standalone, `/rest-api` inside the web adapter. */
    basePath: string;
    /** Built once at start from routes and commands. */
    openapi: Record<string, unknown>;
    /** Code errors of requests, to the maintainers when the instance allows it. */
    errors: ErrorReporter;
}
