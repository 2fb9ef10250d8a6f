import { HttpError } from '../http/http-error';
import type { HookMethod } from '../events/hook-delivery';
import type { Hook } from '../events/hooks';
import type { Filter, SubscriptionSet } from '../events/hub';
import type { PollingSession } from '../events/polling';
import type { RequestContext } from '../context/request-context';

const HOOK_EXAMPLE = 'http://ipaddress:9000/hook/';
const METHODS = new Set(['POST', 'PUT', 'PATCH', 'GET']);

/**
 * The parameters of a subscription request, each taken from the JSON body first, then the query
 * (4.0.2 read some from one, some from the other). A GET's body is used as sent, so the values are
 * judged where they are used, as 4.0.2 did.
 */
export interface SubscriptionParams {
    method?: unknown;
    sid?: unknown;
    url?: unknown;
    onchange?: unknown;
    delta?: unknown;
    secret?: unknown;
    pattern?: unknown;
}

const NAMES: Array<keyof SubscriptionParams> = ['method', 'sid', 'url', 'onchange', 'delta', 'secret', 'pattern'];

/** A subscription request: its parameters, and the client's address (the session of a polling client without `sid`). */
export interface SubscriptionRequest {
    params: SubscriptionParams;
    remoteAddress: string;
}

function isJsonObject(value: unknown): value is Record<string, unknown> {
    return !!value && typeof value === 'object' && !Array.isArray(value);
}

/** `input`: the query as its schema parsed it; `body`: parsed by its schema, or as sent (GET). */
export function subscriptionRequest({
    body,
    input,
    remoteAddress,
}: {
    body: unknown;
    input: SubscriptionParams;
    remoteAddress: string;
}): SubscriptionRequest {
    const fromBody: SubscriptionParams = isJsonObject(body) ? body : {};
    const params: SubscriptionParams = {};
    for (const name of NAMES) {
        params[name] = fromBody[name] ?? input[name];
    }
    return { params, remoteAddress };
}

export function filterOf({ onchange, delta: deltaParam }: SubscriptionParams): Filter {
    const delta = parseFloat(String(deltaParam ?? ''));
    return {
        ...(onchange === true || onchange === 'true' ? { onchange: true } : {}),
        ...(Number.isFinite(delta) ? { delta } : {}),
    };
}

export interface Target {
    set: SubscriptionSet;
    /** Call after changing the set (persists hooks, drops empty ones). */
    changed(): Promise<void>;
    /** Call when the request is done with a target it asked to create (in a finally). */
    done(): void;
}

function pollingTarget(ctx: RequestContext, session: PollingSession, claimed: boolean): Target {
    const { polling } = ctx.events;
    return {
        set: session.subscriptions,
        changed: async () => {
            // with other instances alive they copy the change before the answer goes
            await polling.shared()?.changed(session);
            // an unsubscribe of the last pattern frees its room (a subscribe's claim keeps it until done)
            polling.releaseIfIdle(session);
        },
        done: () => {
            if (claimed) {
                polling.unclaim(session);
            }
        },
    };
}

function hookTarget(ctx: RequestContext, hook: Hook): Target {
    return { set: hook.subscriptions, changed: () => ctx.events.hooks.changed(hook), done: () => undefined };
}

function isPolling(params: SubscriptionParams): boolean {
    return params.method === 'polling';
}

/** The long-polling session's id: the client's `sid`, else its address. */
export function sidOf(sid: unknown, remoteAddress: string): string {
    return String(sid ?? `address:${remoteAddress}`);
}

/** The long-polling session (by `sid`) or the URL hook (by `url`) a subscription request is about. */
export async function subscriptionTarget(
    { params, remoteAddress }: SubscriptionRequest,
    ctx: RequestContext,
    create: boolean,
    extraExample: Record<string, string> = {},
): Promise<Target | null> {
    if (isPolling(params)) {
        const sid = sidOf(params.sid, remoteAddress);
        const { polling } = ctx.events;
        const share = polling.shared();
        let session: PollingSession | undefined;
        if (share) {
            session = await share.find(ctx.owner, sid, create, create);
        } else {
            session = create ? polling.getOrCreate(ctx.owner, sid) : polling.get(ctx.owner, sid);
            // a subscribe holds on to its session until it is done: nothing releases it in between
            if (session && create) {
                session.claims++;
            }
        }
        return session ? pollingTarget(ctx, session, create) : null;
    }
    const { url } = params;
    if (typeof url !== 'string' || !url) {
        throw new HttpError('INVALID_PARAMS', 'url not provided', {
            context: { expectedBody: { url: HOOK_EXAMPLE, ...extraExample } },
        });
    }
    // what another instance changed before this request is seen here
    await ctx.events.hooks.settled();
    if (!create) {
        const hook = ctx.events.hooks.get(ctx.owner, url);
        return hook ? hookTarget(ctx, hook) : null;
    }
    const method = String(params.method ?? 'POST').toUpperCase();
    const { secret } = params;
    const hook = await ctx.events.hooks.register(
        ctx.owner,
        url,
        (METHODS.has(method) ? method : 'POST') as HookMethod,
        typeof secret === 'string' && secret ? secret : undefined,
    );
    return hookTarget(ctx, hook);
}
