import { HttpError } from '../http/http-error';
import type { HookMethod } from '../events/hook-delivery';
import type { Hook } from '../events/hooks';
import type { Filter, SubscriptionSet } from '../events/hub';
import type { PollingSession } from '../events/polling';
import type { RequestContext } from '../request-context';
import type { RouteRequest } from '../http/route';

const HOOK_EXAMPLE = 'http://ipaddress:9000/hook/';
const METHODS = new Set(['POST', 'PUT', 'PATCH', 'GET']);

/** A parameter from the JSON body or the query (both parsed by their schemas): 4.0.2 read some from one, some from the other. */
export function param(req: RouteRequest, name: string): unknown {
    const body = req.body && typeof req.body === 'object' && !Array.isArray(req.body) ? (req.body as Record<string, unknown>) : {};
    return body[name] ?? req.input[name] ?? req.query[name] ?? undefined;
}

export function filterOf(req: RouteRequest): Filter {
    const onchange = param(req, 'onchange');
    const delta = parseFloat(String(param(req, 'delta') ?? ''));
    return {
        ...(onchange === true || onchange === 'true' ? { onchange: true } : {}),
        ...(Number.isFinite(delta) ? { delta } : {}),
    };
}

export interface Target {
    set: SubscriptionSet;
    /** Call after changing the set (persists hooks, drops empty ones). */
    changed(): Promise<void>;
}

function pollingTarget(session: PollingSession): Target {
    return { set: session.subscriptions, changed: async () => undefined };
}

function hookTarget(ctx: RequestContext, hook: Hook): Target {
    return { set: hook.subscriptions, changed: () => ctx.events.hooks.changed(hook) };
}

export function isPolling(req: RouteRequest): boolean {
    return param(req, 'method') === 'polling';
}

export function sidOf(req: RouteRequest): string {
    return String(param(req, 'sid') ?? `address:${req.remoteAddress}`);
}

/** The long-polling session (by `sid`) or the URL hook (by `url`) a subscription request is about. */
export async function subscriptionTarget(req: RouteRequest, ctx: RequestContext, create: boolean, extraExample: Record<string, string> = {}): Promise<Target | null> {
    if (isPolling(req)) {
        const session = create ? ctx.events.polling.getOrCreate(ctx.owner, sidOf(req)) : ctx.events.polling.get(ctx.owner, sidOf(req));
        return session ? pollingTarget(session) : null;
    }
    const url = param(req, 'url');
    if (typeof url !== 'string' || !url) {
        throw new HttpError('INVALID_PARAMS', 'url not provided', { context: { expectedBody: { url: HOOK_EXAMPLE, ...extraExample } } });
    }
    if (!create) {
        const hook = ctx.events.hooks.get(ctx.owner, url);
        return hook ? hookTarget(ctx, hook) : null;
    }
    const method = String(param(req, 'method') ?? 'POST').toUpperCase();
    const secret = param(req, 'secret');
    const hook = await ctx.events.hooks.register(ctx.owner, url, (METHODS.has(method) ? method : 'POST') as HookMethod, typeof secret === 'string' && secret ? secret : undefined);
    return hookTarget(ctx, hook);
}
