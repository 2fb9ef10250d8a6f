import { Type } from '@sinclair/typebox';
import { isPattern, safePattern } from '../access/patterns';
import { HttpError } from '../http/http-error';
import type { RequestContext } from '../context/request-context';
import { EVENT_BODY } from '../events/schemas';
import { json, ObjectSchema, StateSchema } from '../http/schemas';
import { defineRoute, type Route, type RouteResponse } from '../routing/route';
import { filterOf, subscriptionRequest, subscriptionTarget, type SubscriptionRequest } from './subscription-target';

const READ_STATE = { type: 'state', operation: 'read' } as const;
const READ_OBJECT = { type: 'object', operation: 'read' } as const;
const PATTERN_EXAMPLE = 'system.adapter.admin.0.*';

const subscriptionQuery = Type.Object({
    method: Type.Optional(
        Type.String({
            description:
                '"polling" for long polling; for a URL hook the HTTP method of deliveries (POST, PUT, PATCH, GET)',
        }),
    ),
    sid: Type.Optional(Type.String({ description: 'Long-polling session id' })),
    url: Type.Optional(Type.String({ description: 'URL hook that receives the events' })),
    onchange: Type.Optional(Type.Boolean({ description: 'Only changed values' })),
    delta: Type.Optional(Type.Number({ description: 'Only when the value moved at least this much' })),
    secret: Type.Optional(Type.String({ description: 'Sign every hook delivery (Standard Webhooks, HMAC-SHA256)' })),
});
/** The routes that take a pattern read it from the body or, as in 4.0.2, the query. */
const patternQuery = Type.Object({
    ...subscriptionQuery.properties,
    pattern: Type.Optional(Type.String({ description: `Id pattern, e.g. ${PATTERN_EXAMPLE}` })),
});
const subscriptionBody = Type.Object({ ...subscriptionQuery.properties, pattern: Type.Optional(Type.String()) });

const HOOK_CALLS = {
    description:
        'URL hooks then receive these bodies (JSON, with the registered method), polling sessions get them from /v1/polling',
    content: { 'application/json': EVENT_BODY },
};

/** What every subscription route answers besides its own 200: the events that follow. */
const answers = (ok: RouteResponse): Record<string, RouteResponse> => ({ 200: ok, 'x-events': HOOK_CALLS });

const STATE_ANSWERS = answers(
    json(Type.Union([StateSchema, Type.Null()]), 'Subscribed: the current state (null when it has no value yet)'),
);
const OBJECT_ANSWERS = answers(json(ObjectSchema, 'Subscribed: the current object'));
const OK = Type.Object({ result: Type.Literal('OK') });
const SUBSCRIBED = answers(json(OK, 'Subscribed'));
const UNSUBSCRIBED = answers(json(OK, 'Unsubscribed (also when nothing was subscribed)'));
const patternsList = (description: string) => Type.Array(Type.String(), { description });
const STATE_LIST = answers(
    json(Type.Object({ states: patternsList('State ids and patterns') }), 'The subscribed state ids and patterns'),
);
// 4.0.2 answered the object list under `states` too
const OBJECT_LIST = answers(
    json(
        Type.Object({
            states: patternsList('Object ids and patterns, named as in 4.0.2'),
            objects: patternsList('The same list'),
        }),
        'The subscribed object ids and patterns',
    ),
);

/**
 * The fields all subscription routes share: their parameters may come from the query instead of
 * the body, as in 4.0.2; a GET's JSON body is read as sent.
 */
// 429: long-polling sessions and URL hooks are bounded per user and in total, with auth off too
const SUBSCRIPTION = {
    scoped: 'ids',
    body: 'json',
    optionalBody: true,
    errors: [404, 409, 429],
} satisfies Partial<Route>;

async function subscribeOne(
    sub: SubscriptionRequest,
    ctx: RequestContext,
    kind: 'state' | 'object',
    id: string,
): Promise<unknown> {
    const context = { [kind === 'state' ? 'stateId' : 'objectId']: id };
    if (isPattern(id)) {
        throw new HttpError('NOT_FOUND', 'Use the pattern routes for patterns', { context });
    }
    // with the caller's rights: js-controller's getForeignObject checks none
    const obj = await ctx.data.readObject(id, context);
    if (!obj) {
        throw new HttpError('NOT_FOUND', 'object not found', { context: { ...context, url: sub.params.url } });
    }
    if (kind === 'state' && obj.type !== 'state') {
        throw new HttpError('INVALID_PARAMS', 'Cannot subscribe on non-state', {
            context: { ...context, type: obj.type, url: sub.params.url },
        });
    }
    const state = kind === 'state' ? await ctx.data.readState(id) : null;
    const target = (await subscriptionTarget(sub, ctx, true))!;
    try {
        const subscription = await target.set.add(
            kind,
            id,
            kind === 'state' ? filterOf(sub.params) : {},
            kind === 'state' ? 'stateId' : 'objectId',
        );
        if (state) {
            subscription.remember(id, state.val);
        }
        await target.changed();
    } finally {
        target.done();
    }
    return kind === 'state' ? (state ?? null) : obj;
}

async function subscribePattern(
    sub: SubscriptionRequest,
    ctx: RequestContext,
    kind: 'state' | 'object',
): Promise<unknown> {
    const { pattern, url } = sub.params;
    if (typeof pattern !== 'string' || !pattern) {
        const example = url ? { url: 'http://ipaddress:9000/hook/' } : {};
        throw new HttpError('INVALID_PARAMS', 'pattern not provided', {
            context: { expectedBody: { ...example, pattern: PATTERN_EXAMPLE } },
        });
    }
    // before the target: a hook is checked by calling its URL, which a refused pattern must not cause
    const safe = safePattern('pattern', pattern);
    const target = (await subscriptionTarget(sub, ctx, true, { pattern: PATTERN_EXAMPLE }))!;
    try {
        await target.set.add(kind, safe, kind === 'state' ? filterOf(sub.params) : {});
        await target.changed();
    } finally {
        target.done();
    }
    return { result: 'OK' };
}

async function unsubscribe(
    sub: SubscriptionRequest,
    ctx: RequestContext,
    kind: 'state' | 'object',
    pattern: string | undefined,
): Promise<unknown> {
    const target = await subscriptionTarget(sub, ctx, false);
    if (target) {
        await target.set.remove(kind, pattern);
        await target.changed();
    }
    return { result: 'OK' };
}

async function list(sub: SubscriptionRequest, ctx: RequestContext, kind: 'state' | 'object'): Promise<unknown> {
    const target = await subscriptionTarget(sub, ctx, false);
    if (!target) {
        throw new HttpError('NOT_FOUND', 'URL or session not found');
    }
    const patterns = target.set.patterns(kind);
    // 4.0.2 answered the object list under `states` too
    return kind === 'state' ? { states: patterns } : { states: patterns, objects: patterns };
}

/** Unsubscribe a pattern; without one, everything of its kind. */
function unsubscribePattern(sub: SubscriptionRequest, ctx: RequestContext, kind: 'state' | 'object'): Promise<unknown> {
    const { pattern } = sub.params;
    return unsubscribe(sub, ctx, kind, typeof pattern === 'string' && pattern ? pattern : undefined);
}

/** Long-polling and URL-hook subscriptions, on every route of 4.0.2 plus the ones its example clients call. */
export const subscribeRoutes: Route[] = [
    defineRoute({
        ...SUBSCRIPTION,
        method: 'GET',
        path: '/v1/state/:stateId/subscribe',
        summary: 'Subscribe to a state (long polling: method=polling&sid=...)',
        tag: 'state',
        permission: READ_STATE,
        // it changes what the server does (a hook calls its URL)
        writesOnGet: true,
        query: subscriptionQuery,
        responses: STATE_ANSWERS,
        handler: (req, ctx) => subscribeOne(subscriptionRequest(req), ctx, 'state', req.params.stateId),
    }),
    defineRoute({
        ...SUBSCRIPTION,
        method: 'POST',
        path: '/v1/state/:stateId/subscribe',
        summary: 'Subscribe a URL hook or a polling session to a state',
        tag: 'state',
        permission: READ_STATE,
        query: subscriptionQuery,
        requestBody: subscriptionBody,
        responses: STATE_ANSWERS,
        handler: (req, ctx) => subscribeOne(subscriptionRequest(req), ctx, 'state', req.params.stateId),
    }),
    defineRoute({
        ...SUBSCRIPTION,
        method: 'DELETE',
        path: '/v1/state/:stateId/subscribe',
        summary: 'Unsubscribe from a state',
        tag: 'state',
        permission: READ_STATE,
        query: subscriptionQuery,
        requestBody: subscriptionBody,
        responses: UNSUBSCRIBED,
        handler: (req, ctx) => unsubscribe(subscriptionRequest(req), ctx, 'state', req.params.stateId),
    }),
    defineRoute({
        ...SUBSCRIPTION,
        method: 'GET',
        path: '/v1/state/:stateId/unsubscribe',
        summary: 'Unsubscribe from a state (for old example clients)',
        tag: 'state',
        permission: READ_STATE,
        writesOnGet: true,
        query: subscriptionQuery,
        responses: UNSUBSCRIBED,
        handler: (req, ctx) => unsubscribe(subscriptionRequest(req), ctx, 'state', req.params.stateId),
    }),
    defineRoute({
        ...SUBSCRIPTION,
        method: 'GET',
        path: '/v1/states/subscribe',
        summary: 'List the state subscriptions of a session or URL',
        tag: 'state',
        permission: READ_STATE,
        query: subscriptionQuery,
        responses: STATE_LIST,
        handler: (req, ctx) => list(subscriptionRequest(req), ctx, 'state'),
    }),
    defineRoute({
        ...SUBSCRIPTION,
        method: 'POST',
        path: '/v1/states/subscribe',
        summary: 'Subscribe to states by pattern',
        tag: 'state',
        permission: READ_STATE,
        query: patternQuery,
        requestBody: subscriptionBody,
        responses: SUBSCRIBED,
        handler: (req, ctx) => subscribePattern(subscriptionRequest(req), ctx, 'state'),
    }),
    defineRoute({
        ...SUBSCRIPTION,
        method: 'DELETE',
        path: '/v1/states/subscribe',
        summary: 'Unsubscribe a pattern (or, without one, all state subscriptions)',
        tag: 'state',
        permission: READ_STATE,
        query: patternQuery,
        requestBody: subscriptionBody,
        responses: UNSUBSCRIBED,
        handler: (req, ctx) => unsubscribePattern(subscriptionRequest(req), ctx, 'state'),
    }),
    defineRoute({
        ...SUBSCRIPTION,
        method: 'POST',
        path: '/v1/states/unsubscribe',
        summary: 'Unsubscribe a pattern (for old example clients)',
        tag: 'state',
        permission: READ_STATE,
        query: patternQuery,
        requestBody: subscriptionBody,
        responses: UNSUBSCRIBED,
        handler: (req, ctx) => unsubscribePattern(subscriptionRequest(req), ctx, 'state'),
    }),
    defineRoute({
        ...SUBSCRIPTION,
        method: 'GET',
        path: '/v1/object/:objectId/subscribe',
        summary: 'Subscribe to an object (long polling)',
        tag: 'object',
        permission: READ_OBJECT,
        writesOnGet: true,
        query: subscriptionQuery,
        responses: OBJECT_ANSWERS,
        handler: (req, ctx) => subscribeOne(subscriptionRequest(req), ctx, 'object', req.params.objectId),
    }),
    defineRoute({
        ...SUBSCRIPTION,
        method: 'POST',
        path: '/v1/object/:objectId/subscribe',
        summary: 'Subscribe a URL hook or a polling session to an object',
        tag: 'object',
        permission: READ_OBJECT,
        query: subscriptionQuery,
        requestBody: subscriptionBody,
        responses: OBJECT_ANSWERS,
        handler: (req, ctx) => subscribeOne(subscriptionRequest(req), ctx, 'object', req.params.objectId),
    }),
    defineRoute({
        ...SUBSCRIPTION,
        method: 'DELETE',
        path: '/v1/object/:objectId/subscribe',
        summary: 'Unsubscribe from an object',
        tag: 'object',
        permission: READ_OBJECT,
        query: subscriptionQuery,
        requestBody: subscriptionBody,
        responses: UNSUBSCRIBED,
        handler: (req, ctx) => unsubscribe(subscriptionRequest(req), ctx, 'object', req.params.objectId),
    }),
    defineRoute({
        ...SUBSCRIPTION,
        method: 'GET',
        path: '/v1/object/:objectId/unsubscribe',
        summary: 'Unsubscribe from an object (for old example clients)',
        tag: 'object',
        permission: READ_OBJECT,
        writesOnGet: true,
        query: subscriptionQuery,
        responses: UNSUBSCRIBED,
        handler: (req, ctx) => unsubscribe(subscriptionRequest(req), ctx, 'object', req.params.objectId),
    }),
    defineRoute({
        ...SUBSCRIPTION,
        method: 'GET',
        path: '/v1/objects/subscribe',
        summary: 'List the object subscriptions of a session or URL',
        tag: 'object',
        permission: READ_OBJECT,
        query: subscriptionQuery,
        responses: OBJECT_LIST,
        handler: (req, ctx) => list(subscriptionRequest(req), ctx, 'object'),
    }),
    defineRoute({
        ...SUBSCRIPTION,
        method: 'POST',
        path: '/v1/objects/subscribe',
        summary: 'Subscribe to objects by pattern',
        tag: 'object',
        permission: READ_OBJECT,
        query: patternQuery,
        requestBody: subscriptionBody,
        responses: SUBSCRIBED,
        handler: (req, ctx) => subscribePattern(subscriptionRequest(req), ctx, 'object'),
    }),
    defineRoute({
        ...SUBSCRIPTION,
        method: 'DELETE',
        path: '/v1/objects/subscribe',
        summary: 'Unsubscribe an object pattern (or all)',
        tag: 'object',
        permission: READ_OBJECT,
        query: patternQuery,
        requestBody: subscriptionBody,
        responses: UNSUBSCRIBED,
        handler: (req, ctx) => unsubscribePattern(subscriptionRequest(req), ctx, 'object'),
    }),
];
