import { Type } from '@sinclair/typebox';
import { isPattern, safePattern } from '../access/patterns';
import { HttpError } from '../http/http-error';
import type { RequestContext } from '../request-context';
import { EVENT_BODY } from '../events/schemas';
import { defineRoute, type Method, type Route, type RouteRequest } from '../http/route';
import { filterOf, param, subscriptionTarget } from './subscription-target';

const READ_STATE = { type: 'state', operation: 'read' } as const;
const READ_OBJECT = { type: 'object', operation: 'read' } as const;
const PATTERN_EXAMPLE = 'system.adapter.admin.0.*';

const subscriptionQuery = Type.Object({
    method: Type.Optional(Type.String({ description: '"polling" for long polling; for a URL hook the HTTP method of deliveries (POST, PUT, PATCH, GET)' })),
    sid: Type.Optional(Type.String({ description: 'Long-polling session id' })),
    url: Type.Optional(Type.String({ description: 'URL hook that receives the events' })),
    onchange: Type.Optional(Type.Boolean({ description: 'Only changed values' })),
    delta: Type.Optional(Type.Number({ description: 'Only when the value moved at least this much' })),
    secret: Type.Optional(Type.String({ description: 'Sign every hook delivery (Standard Webhooks, HMAC-SHA256)' })),
});
const subscriptionBody = Type.Object({ ...subscriptionQuery.properties, pattern: Type.Optional(Type.String()) });

const HOOK_CALLS = {
    description: 'URL hooks then receive these bodies (JSON, with the registered method), polling sessions get them from /v1/polling',
    content: { 'application/json': EVENT_BODY },
};

const route = (method: Method, path: string, summary: string, permission: Route['permission'], handler: Route['handler'], tag: string): Route =>
    defineRoute({
        method,
        path,
        summary,
        tag,
        permission,
        scoped: 'ids',
        body: 'json',
        // the parameters may come from the query instead, as in 4.0.2
        optionalBody: true,
        query: subscriptionQuery,
        ...(method === 'GET' ? {} : { requestBody: subscriptionBody }),
        responses: { '200': { description: 'The current value, `{"result":"OK"}` or the list', content: { 'application/json': Type.Unknown() } }, 'x-events': HOOK_CALLS },
        errors: [404, 409],
        handler,
    });

async function subscribeOne(req: RouteRequest, ctx: RequestContext, kind: 'state' | 'object'): Promise<unknown> {
    const id = kind === 'state' ? req.params.stateId : req.params.objectId;
    const context = { [kind === 'state' ? 'stateId' : 'objectId']: id };
    if (isPattern(id)) {
        throw new HttpError('NOT_FOUND', 'Use the pattern routes for patterns', { context });
    }
    // with the caller's rights: js-controller's getForeignObject checks none
    const obj = await ctx.data.readObject(id, context);
    if (!obj) {
        throw new HttpError('NOT_FOUND', 'object not found', { context: { ...context, url: param(req, 'url') } });
    }
    if (kind === 'state' && obj.type !== 'state') {
        throw new HttpError('INVALID_PARAMS', 'Cannot subscribe on non-state', { context: { ...context, type: obj.type, url: param(req, 'url') } });
    }
    const state = kind === 'state' ? await ctx.data.readState(id) : null;
    const target = (await subscriptionTarget(req, ctx, true))!;
    const subscription = await target.set.add(kind, id, kind === 'state' ? filterOf(req) : {}, kind === 'state' ? 'stateId' : 'objectId');
    if (state) {
        subscription.remember(id, state.val);
    }
    await target.changed();
    return kind === 'state' ? state ?? null : obj;
}

async function subscribePattern(req: RouteRequest, ctx: RequestContext, kind: 'state' | 'object'): Promise<unknown> {
    const pattern = param(req, 'pattern');
    if (typeof pattern !== 'string' || !pattern) {
        const url = param(req, 'url') ? { url: 'http://ipaddress:9000/hook/' } : {};
        throw new HttpError('INVALID_PARAMS', 'pattern not provided', { context: { expectedBody: { ...url, pattern: PATTERN_EXAMPLE } } });
    }
    // before the target: a hook is checked by calling its URL, which a refused pattern must not cause
    const safe = safePattern('pattern', pattern);
    const target = (await subscriptionTarget(req, ctx, true, { pattern: PATTERN_EXAMPLE }))!;
    await target.set.add(kind, safe, kind === 'state' ? filterOf(req) : {});
    await target.changed();
    return { result: 'OK' };
}

async function unsubscribe(req: RouteRequest, ctx: RequestContext, kind: 'state' | 'object', pattern: string | undefined): Promise<unknown> {
    const target = await subscriptionTarget(req, ctx, false);
    if (target) {
        await target.set.remove(kind, pattern);
        await target.changed();
    }
    return { result: 'OK' };
}

async function list(req: RouteRequest, ctx: RequestContext, kind: 'state' | 'object'): Promise<unknown> {
    const target = await subscriptionTarget(req, ctx, false);
    if (!target) {
        throw new HttpError('NOT_FOUND', 'URL or session not found');
    }
    const patterns = target.set.patterns(kind);
    // 4.0.2 answered the object list under `states` too
    return kind === 'state' ? { states: patterns } : { states: patterns, objects: patterns };
}

const patternOf = (req: RouteRequest): string | undefined => {
    const pattern = param(req, 'pattern');
    return typeof pattern === 'string' && pattern ? pattern : undefined;
};

/** A GET that subscribes or unsubscribes changes what the server does (a hook calls its URL). */
const changing = (r: Route): Route => ({ ...r, writesOnGet: true });

/** Long-polling and URL-hook subscriptions, on every route of 4.0.2 plus the ones its example clients call. */
export const subscribeRoutes: Route[] = [
    changing(route('GET', '/v1/state/:stateId/subscribe', 'Subscribe to a state (long polling: method=polling&sid=...)', READ_STATE, (req, ctx) => subscribeOne(req, ctx, 'state'), 'state')),
    route('POST', '/v1/state/:stateId/subscribe', 'Subscribe a URL hook or a polling session to a state', READ_STATE, (req, ctx) => subscribeOne(req, ctx, 'state'), 'state'),
    route('DELETE', '/v1/state/:stateId/subscribe', 'Unsubscribe from a state', READ_STATE, (req, ctx) => unsubscribe(req, ctx, 'state', req.params.stateId), 'state'),
    changing(route('GET', '/v1/state/:stateId/unsubscribe', 'Unsubscribe from a state (for old example clients)', READ_STATE, (req, ctx) => unsubscribe(req, ctx, 'state', req.params.stateId), 'state')),
    route('GET', '/v1/states/subscribe', 'List the state subscriptions of a session or URL', READ_STATE, (req, ctx) => list(req, ctx, 'state'), 'state'),
    route('POST', '/v1/states/subscribe', 'Subscribe to states by pattern', READ_STATE, (req, ctx) => subscribePattern(req, ctx, 'state'), 'state'),
    route('DELETE', '/v1/states/subscribe', 'Unsubscribe a pattern (or, without one, all state subscriptions)', READ_STATE, (req, ctx) => unsubscribe(req, ctx, 'state', patternOf(req)), 'state'),
    route('POST', '/v1/states/unsubscribe', 'Unsubscribe a pattern (for old example clients)', READ_STATE, (req, ctx) => unsubscribe(req, ctx, 'state', patternOf(req)), 'state'),
    changing(route('GET', '/v1/object/:objectId/subscribe', 'Subscribe to an object (long polling)', READ_OBJECT, (req, ctx) => subscribeOne(req, ctx, 'object'), 'object')),
    route('POST', '/v1/object/:objectId/subscribe', 'Subscribe a URL hook or a polling session to an object', READ_OBJECT, (req, ctx) => subscribeOne(req, ctx, 'object'), 'object'),
    route('DELETE', '/v1/object/:objectId/subscribe', 'Unsubscribe from an object', READ_OBJECT, (req, ctx) => unsubscribe(req, ctx, 'object', req.params.objectId), 'object'),
    changing(route('GET', '/v1/object/:objectId/unsubscribe', 'Unsubscribe from an object (for old example clients)', READ_OBJECT, (req, ctx) => unsubscribe(req, ctx, 'object', req.params.objectId), 'object')),
    route('GET', '/v1/objects/subscribe', 'List the object subscriptions of a session or URL', READ_OBJECT, (req, ctx) => list(req, ctx, 'object'), 'object'),
    route('POST', '/v1/objects/subscribe', 'Subscribe to objects by pattern', READ_OBJECT, (req, ctx) => subscribePattern(req, ctx, 'object'), 'object'),
    route('DELETE', '/v1/objects/subscribe', 'Unsubscribe an object pattern (or all)', READ_OBJECT, (req, ctx) => unsubscribe(req, ctx, 'object', patternOf(req)), 'object'),
];
