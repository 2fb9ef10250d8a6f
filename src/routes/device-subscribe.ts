import { Type } from '@sinclair/typebox';
import { HttpError } from '../http/http-error';
import type { RequestContext } from '../context/request-context';
import { json } from '../http/schemas';
import { visibleDevices } from '../objects/device-view';
import { EVENT_BODY } from '../events/schemas';
import { defineRoute, type Route } from '../routing/route';
import { filterOf, subscriptionRequest, subscriptionTarget, type SubscriptionRequest } from './subscription-target';

/*
 * Long polling and URL hooks for a device, or for every device of a room or function: the events are
 * the state events of the device's states with `device` and `role` added, and follow the device as
 * its states, rooms and functions change (src/events/device-events.ts).
 */

const READ_STATE = { type: 'state', operation: 'read' } as const;

const query = Type.Object({
    method: Type.Optional(
        Type.String({ description: '"polling" for long polling; for a URL hook the HTTP method of deliveries' }),
    ),
    sid: Type.Optional(Type.String({ description: 'Long-polling session id' })),
    url: Type.Optional(Type.String({ description: 'URL hook that receives the events' })),
    onchange: Type.Optional(Type.Boolean({ description: 'Only changed values' })),
    delta: Type.Optional(Type.Number({ description: 'Only when the value moved at least this much' })),
    secret: Type.Optional(Type.String({ description: 'Sign every hook delivery (Standard Webhooks, HMAC-SHA256)' })),
});
const body = Type.Object({ ...query.properties });
const OK = json(Type.Object({ result: Type.Literal('OK') }), 'Subscribed');
const EVENTS = {
    description:
        'Each change of one of the states: {"device", "role", "id", "state"} (role: the state name of type-detector, e.g. ACTUAL)',
    content: { 'application/json': EVENT_BODY },
};

type Category = 'devices' | 'rooms' | 'functions';

/** 404 unless the caller sees the device (one of its states) or may read the room or function (by its enum id). */
export function assertDeviceVisible(ctx: RequestContext, id: string): Promise<void> {
    const category = /^enum\.(rooms|functions)\./.exec(id)?.[1] as Category | undefined;
    return assertVisible(ctx, category ?? 'devices', id);
}

async function assertVisible(ctx: RequestContext, category: Category, id: string): Promise<void> {
    const snapshot = await ctx.devices.snapshot();
    if (category === 'devices') {
        const found = await visibleDevices(ctx.data, snapshot, {}, [id]);
        if (!found[id]) {
            throw new HttpError('NOT_FOUND', 'Device not found', { context: { id } });
        }
        return;
    }
    const entry = snapshot[category].find(each => each.id === id);
    const visible = entry ? await ctx.data.visibleObjects({ [id]: entry.obj }) : {};
    if (!(id in visible)) {
        throw new HttpError('NOT_FOUND', `${category === 'rooms' ? 'Room' : 'Function'} not found`, {
            context: { id },
        });
    }
}

async function subscribe(sub: SubscriptionRequest, ctx: RequestContext, category: Category, id: string) {
    await assertVisible(ctx, category, id);
    const target = (await subscriptionTarget(sub, ctx, true))!;
    try {
        await target.set.add('device', id, filterOf(sub.params), 'id');
        await target.changed();
    } finally {
        target.done();
    }
    return { result: 'OK' };
}

async function unsubscribe(sub: SubscriptionRequest, ctx: RequestContext, id: string) {
    const target = await subscriptionTarget(sub, ctx, false);
    if (target) {
        await target.set.remove('device', id);
        await target.changed();
    }
    return { result: 'OK' };
}

const NAMES: Record<Category, { param: string; what: string }> = {
    devices: { param: 'deviceId', what: 'a device' },
    rooms: { param: 'roomId', what: 'every device of a room (enum.rooms.*)' },
    functions: { param: 'functionId', what: 'every device of a function (enum.functions.*)' },
};

function routesOf(category: Category): Route[] {
    const { param, what } = NAMES[category];
    const common = {
        path: `/v1/${category}/:${param}/subscribe`,
        scoped: 'ids',
        body: 'json',
        optionalBody: true,
        tag: 'devices',
        permission: READ_STATE,
        query,
        requestBody: body,
        errors: [404, 409, 429],
    } satisfies Partial<Route>;
    return [
        defineRoute({
            ...common,
            method: 'POST',
            summary: `Subscribe a polling session (method=polling&sid=...) or a URL hook (url=...) to ${what}`,
            responses: { 200: OK, 'x-events': EVENTS },
            handler: (req, ctx) => subscribe(subscriptionRequest(req), ctx, category, req.params[param]),
        }),
        defineRoute({
            ...common,
            method: 'DELETE',
            summary: `Unsubscribe from ${what}`,
            responses: {
                200: json(Type.Object({ result: Type.Literal('OK') }), 'Unsubscribed (also when nothing was)'),
            },
            handler: (req, ctx) => unsubscribe(subscriptionRequest(req), ctx, req.params[param]),
        }),
    ];
}

export const deviceSubscribeRoutes: Route[] = [...routesOf('devices'), ...routesOf('rooms'), ...routesOf('functions')];
