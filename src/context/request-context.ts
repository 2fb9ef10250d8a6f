import type { Acl, AclCache, PermissionEntry } from '../access/rules';
import { ownerOf } from '../access/owner';
import { pairMemo } from '../access/pair-memo';
import { writingScope } from '../access/scope';
import type { ApiTokens } from '../auth/api-tokens';
import type { BruteForceGuard } from '../auth/brute-force';
import type { CredentialChecker } from '../auth/credentials';
import type { LoginSessions } from '../auth/tokens';
import type { Config } from '../instance/config';
import type { ChangeFeed } from '../storage/change-feed';
import type { HookRegistry } from '../events/hook-registry';
import type { PollingRegistry } from '../events/polling';
import type { SseRegistry } from '../events/sse';
import type { Metrics } from '../metrics/metrics';
import type { ListingWalks } from '../objects/listing-walks';
import type { DeviceCatalog } from '../objects/device-catalog';
import { CallerData, type DataStores } from '../storage/data';
import type { ReceiverStore } from '../webhooks/receivers';
import type { Timers } from '../instance/timers';

/** Change notifications and what is delivered from them: polling, URL hooks, event streams, webhook receivers. */
export interface EventServices {
    feed: ChangeFeed;
    /** Resolves once the state notifications published before the call were handled. */
    stateBarrier: () => Promise<void>;
    polling: PollingRegistry;
    hooks: HookRegistry;
    /** Server-sent event streams of `/v1/events`. */
    sse: SseRegistry;
    /** Inbound webhook receivers and the states they write. */
    receivers: ReceiverStore;
    /** Damps guessing of webhook secrets, per address. */
    webhookGuard: BruteForceGuard;
}

/** Who may do what: logins, each user's rights, API tokens, login sessions. */
export interface AuthServices {
    credentials: CredentialChecker;
    acls: AclCache;
    /** API tokens: issued, listed, revoked, and verified for every Bearer request that carries one. */
    tokens: ApiTokens;
    /** OAuth login sessions (in js-controller's session store). */
    sessions: LoginSessions;
}

/** What the instance is: settings, names, the served API and its metrics, the host it runs on. */
export interface MetaServices {
    config: Config;
    /** Instance namespace, e.g. `rest-api.0`. */
    namespace: string;
    /** Adapter name and version, for `getVersion` and the docs. */
    adapterName: string;
    version: string;
    /** What each served command and route needs (`listPermissions`), derived from both at start. */
    permissions: Readonly<Record<string, PermissionEntry>>;
    /** The OpenAPI document, built once at start from routes and commands. */
    openapi: Record<string, unknown>;
    /** Request, event and process metrics for `/metrics` (prom-client). */
    metrics: Metrics;
    /** False while js-controller's storage connection is down (only known in the standalone process). */
    storageUp(): boolean;
    /** The js-controller host this instance runs on. */
    readonly host: string | undefined;
    /** The instance's log. */
    readonly log: ioBroker.Logger;
    /** The adapter's timers (js-controller clears them when the instance stops). */
    timers: Timers;
    supportsFeature(feature: string): boolean;
}

/** The request-independent parts a request context is made of. */
export interface ContextServices {
    data: DataStores;
    events: EventServices;
    auth: AuthServices;
    meta: MetaServices;
    /** The ids of paged listing walks, so later pages read only theirs. */
    walks: ListingWalks;
    /** The devices type-detector finds, detected again after object changes (the same for every caller). */
    devices: DeviceCatalog;
}

/** What a command or route handler may use; handlers never see `req` or `res`, the app, or js-controller itself. */
export interface RequestContext {
    /** js-controller's data, for this caller: its rights and options, the caches, the write policy (src/storage/data.ts). */
    data: CallerData;
    events: EventServices;
    auth: AuthServices;
    meta: MetaServices;
    walks: ListingWalks;
    devices: DeviceCatalog;
    user: string;
    /** Who owns the polling sessions, hooks and event streams this request opens (ownerOf). */
    owner: string;
    acl: Acl;
    /** onlyAllowWhenUserIsOwner: only the owner bits of a state's ACL count. */
    ownerOnly: boolean;
}

/** The services each context was made from, for the contexts derived from it; handlers never see them. */
const madeFrom = new WeakMap<RequestContext, ContextServices>();

/** For a write: a token may read the objects of what it may write (ids resolve and values convert by them). */
export function writingContext(ctx: RequestContext): RequestContext {
    const token = ctx.acl.token;
    const services = madeFrom.get(ctx);
    return token?.scope && services
        ? createContext(services, { ...ctx.acl, token: { ...token, scope: writingScope(token.scope) } })
        : ctx;
}

/** One context per ACL object and services: nothing in a context changes per request, and the ACL cache hands out the same object until rights change. */
const made = pairMemo<ContextServices, Acl, RequestContext>();

export function createContext(services: ContextServices, acl: Acl): RequestContext {
    // newContext itself, not a closure: nothing is allocated on a hit (the hot read path)
    return made(services, acl, newContext);
}

function newContext(services: ContextServices, acl: Acl): RequestContext {
    const ownerOnly = services.meta.config.onlyAllowWhenUserIsOwner;
    const ctx: RequestContext = {
        data: new CallerData(services.data, { user: acl.user, acl, ownerOnly }),
        events: services.events,
        auth: services.auth,
        meta: services.meta,
        walks: services.walks,
        devices: services.devices,
        user: acl.user,
        owner: ownerOf(acl),
        acl,
        ownerOnly,
    };
    madeFrom.set(ctx, services);
    return ctx;
}
