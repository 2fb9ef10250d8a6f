import { parsePublicUrl, parseTrustEntry } from './proxy-options';

/** The instance's `native` settings after defaults and clamping, as every module reads them. */
export interface Config {
    port: number;
    bind: string;
    secure: boolean;
    certPublic: string;
    certPrivate: string;
    certChained: string;
    auth: boolean;
    defaultUser: string;
    ttl: number;
    onlyAllowWhenUserIsOwner: boolean;
    webInstance: string;
    checkInterval: number;
    hookTimeout: number;
    noUI: boolean;
    dataSource: string;
    noCommands: boolean;
    noAdminCommands: boolean;
    /** Largest accepted request body in bytes. */
    bodyLimit: number;
    /** Let URL hooks reach link-local and cloud metadata addresses (this machine they always may). */
    hooksAllowLinkLocal: boolean;
    /** Let httpGet reach this machine and link-local addresses (it hands the fetched body back). */
    httpGetAllowLocal: boolean;
    /** With auth on: serve the OpenAPI document without credentials too. */
    publicDocs: boolean;
    /** Origins allowed by CORS; empty: every origin, as 4.0.2. Browser writes are allowed from these and our own. */
    corsOrigins: string[];
    /** With auth off: host names besides address literals, localhost and this machine's name that browsers may use. */
    allowedHosts: string[];
    /** Consecutive failed deliveries after which a URL hook is dropped. */
    hookMaxFailures: number;
    /** First retry delay of a failed hook delivery in ms (doubles each time). */
    hookRetryMs: number;
    /** Time a client may take for its request headers, and for the whole request (body included), in ms. */
    headersTimeout: number;
    requestTimeout: number;
    /** Long-polling sessions, URL hooks and event streams, per user and in total (429 beyond). */
    limits: EventLimits;
    /** State patterns exported by /metrics as `iobroker_state` gauges; empty: none. */
    metricsStates: string[];
    /** Serve /metrics without credentials (with auth on). */
    metricsPublic: boolean;
    /** Serve inbound webhook receivers (`/webhooks/<name>`) and their management routes. */
    inboundWebhooks: boolean;
    /** With auth on: let users create API tokens (`/v1/tokens`) and accept them as Bearer tokens. */
    apiTokens: boolean;
    /** Addresses and CIDRs of reverse proxies whose X-Forwarded-* / Forwarded headers count; empty: none. */
    trustProxy: string[];
    /** The API's public base URL (e.g. `https://home.example.org/iobroker/api`); empty: as requests say. */
    publicUrl: string;
}

export interface EventLimits {
    pollSessionsPerUser: number;
    pollSessionsTotal: number;
    hooksPerUser: number;
    hooksTotal: number;
    sseStreamsPerUser: number;
    sseStreamsTotal: number;
}

const DEFAULT_BODY_LIMIT = 100 * 1024 * 1024;

function int(value: unknown, fallback: number): number {
    const n = typeof value === 'number' ? value : parseInt(String(value), 10);
    return Number.isFinite(n) ? n : fallback;
}

function bool(value: unknown): boolean {
    return value === true || value === 'true';
}

function str(value: unknown, fallback = ''): string {
    return typeof value === 'string' ? value : fallback;
}

/** A comma-separated option (or a list, as admin's chips field stores it) as its trimmed, non-empty parts. */
function list(value: unknown): string[] {
    return (Array.isArray(value) ? value.map(part => str(part)) : str(value).split(','))
        .map(part => part.trim())
        .filter(Boolean);
}

export function toUserId(name: string): string {
    const user = name || 'admin';
    return user.startsWith('system.user.') ? user : `system.user.${user}`;
}

export function normalizeConfig(native: Record<string, unknown>): Config {
    const checkInterval = int(native.checkInterval, 30000);
    const requestTimeout = Math.max(2000, int(native.requestTimeout, 120_000));
    return {
        port: int(native.port, 8093),
        bind: str(native.bind, '0.0.0.0'),
        secure: bool(native.secure),
        certPublic: str(native.certPublic),
        certPrivate: str(native.certPrivate),
        certChained: str(native.certChained),
        auth: bool(native.auth),
        defaultUser: toUserId(str(native.defaultUser, 'admin')),
        ttl: int(native.ttl, 3600) || 3600,
        onlyAllowWhenUserIsOwner: bool(native.onlyAllowWhenUserIsOwner),
        webInstance: str(native.webInstance),
        checkInterval: checkInterval > 0 && checkInterval < 5000 ? 5000 : Math.max(0, checkInterval),
        hookTimeout: Math.max(50, int(native.hookTimeout, 3000) || 3000),
        noUI: bool(native.noUI),
        dataSource: str(native.dataSource),
        noCommands: bool(native.noCommands),
        noAdminCommands: bool(native.noAdminCommands),
        bodyLimit: Math.max(1024, int(native.bodyLimit, DEFAULT_BODY_LIMIT)),
        // allowLocalTargets: the one option of the 5.0 alphas, read as both
        hooksAllowLinkLocal: bool(native.hooksAllowLinkLocal) || bool(native.allowLocalTargets),
        httpGetAllowLocal: bool(native.httpGetAllowLocal) || bool(native.allowLocalTargets),
        publicDocs: bool(native.publicDocs),
        hookMaxFailures: Math.max(1, int(native.hookMaxFailures, 10)),
        hookRetryMs: Math.max(10, int(native.hookRetryMs, 1000)),
        // Node refuses a headers timeout above the request timeout
        headersTimeout: Math.min(requestTimeout, Math.max(1000, int(native.headersTimeout, 20_000))),
        // counts until the request is received: long polls and event streams are not cut
        requestTimeout,
        limits: {
            pollSessionsPerUser: Math.max(1, int(native.pollSessionsPerUser, 10_000)),
            pollSessionsTotal: Math.max(1, int(native.pollSessionsTotal, 20_000)),
            hooksPerUser: Math.max(1, int(native.hooksPerUser, 1000)),
            hooksTotal: Math.max(1, int(native.hooksTotal, 5000)),
            sseStreamsPerUser: Math.max(1, int(native.sseStreamsPerUser, 10)),
            sseStreamsTotal: Math.max(1, int(native.sseStreamsTotal, 200)),
        },
        corsOrigins: list(native.corsOrigins),
        allowedHosts: list(native.allowedHosts),
        metricsStates: list(native.metricsStates),
        metricsPublic: bool(native.metricsPublic),
        // on unless switched off: a receiver exists only once an administrator created one
        inboundWebhooks: native.inboundWebhooks === undefined || bool(native.inboundWebhooks),
        apiTokens: native.apiTokens === undefined || bool(native.apiTokens),
        // a malformed entry trusts nothing (configMistakes names it)
        trustProxy: list(native.trustProxy).filter(entry => parseTrustEntry(entry)),
        publicUrl: parsePublicUrl(str(native.publicUrl)) ? str(native.publicUrl).trim() : '',
    };
}

/** Settings that cannot be what the administrator meant: the instance says so and waits for a corrected configuration. */
export function configMistakes(native: Record<string, unknown>): string[] {
    const mistakes = list(native.trustProxy)
        .filter(entry => !parseTrustEntry(entry))
        .map(
            entry =>
                `trustProxy: ${JSON.stringify(entry)} is not an IP address or CIDR (e.g. 192.168.1.10, 10.0.0.0/8, fd00::/8)`,
        );
    const publicUrl = str(native.publicUrl).trim();
    if (publicUrl && !parsePublicUrl(publicUrl)) {
        mistakes.push(
            `publicUrl: ${JSON.stringify(publicUrl)} is not an http(s) URL without query, credentials, "..", "//" (e.g. https://home.example.org/iobroker/api)`,
        );
    }
    return mistakes;
}
