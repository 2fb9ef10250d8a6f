import { Type } from '@sinclair/typebox';
import { HttpError } from '../http/http-error';
import { dictionary, json } from '../http/schemas';
import { Reply } from '../http/send';
import { listingParams, listingReply, pageParams } from '../objects/listing-pages';
import { enumsWithDevices, visibleDevices, type DeviceEntry, type DeviceFilter } from '../objects/device-view';
import { writeDeviceRoles } from '../states/device-write';
import type { RequestContext } from '../context/request-context';
import { defineRoute } from '../routing/route';

/*
 * Devices, rooms and functions as @iobroker/type-detector finds them (src/objects/device-detection.ts):
 * each device with its states by type-detector's state names (SET, ACTUAL, ON, LEVEL, ...), their ids
 * and values; written by those names. Every state passes the caller's read and write rules.
 */

const READ = { type: 'state', operation: 'read' } as const;
const WRITE = { type: 'state', operation: 'write' } as const;
const ENUM_READ = { type: 'object', operation: 'read' } as const;

const langParam = Type.Optional(
    Type.String({ description: 'Language of the names (en, de, ru, ...); default the system language', maxLength: 10 }),
);

const NamedEnum = Type.Object({ id: Type.String(), name: Type.String() });

const DeviceState = Type.Object(
    {
        id: Type.Optional(Type.String()),
        val: Type.Optional(Type.Unknown({ description: 'Current value; null when the state has none' })),
        ack: Type.Optional(Type.Boolean()),
        ts: Type.Optional(Type.Number()),
        lc: Type.Optional(Type.Number()),
    },
    {
        additionalProperties: true,
        description: 'The state of one role, with role, type, unit, min, max, states, write of its object',
    },
);

const DeviceSchema = Type.Object(
    {
        id: Type.Optional(Type.String()),
        name: Type.Optional(Type.String()),
        type: Type.Optional(
            Type.String({ description: 'type-detector device type: light, dimmer, thermostat, blind, ...' }),
        ),
        rooms: Type.Optional(Type.Array(NamedEnum)),
        functions: Type.Optional(Type.Array(NamedEnum)),
        states: Type.Optional(Type.Record(Type.String(), DeviceState, { description: 'role → state' })),
    },
    {
        additionalProperties: true,
        examples: [
            {
                id: 'hm-rpc.0.OEQ0123456.1',
                name: 'Living room lamp',
                type: 'dimmer',
                rooms: [{ id: 'enum.rooms.living_room', name: 'Living room' }],
                functions: [{ id: 'enum.functions.light', name: 'Light' }],
                states: {
                    SET: {
                        id: 'hm-rpc.0.OEQ0123456.1.LEVEL',
                        val: 40,
                        ack: true,
                        role: 'level.dimmer',
                        type: 'number',
                        min: 0,
                        max: 100,
                    },
                    UNREACH: {
                        id: 'hm-rpc.0.OEQ0123456.0.UNREACH',
                        val: false,
                        ack: true,
                        role: 'indicator.maintenance.unreach',
                    },
                },
            },
        ],
    },
);

const filterQuery = {
    room: Type.Optional(
        Type.String({ description: 'Only devices in this room: enum id (enum.rooms.kitchen) or name in any language' }),
    ),
    function: Type.Optional(
        Type.String({ description: 'Only devices of this function: enum id or name in any language' }),
    ),
    type: Type.Optional(
        Type.String({ description: 'Only devices of this type-detector type, e.g. light, thermostat' }),
    ),
    lang: langParam,
};

export const listDevicesRoute = defineRoute({
    method: 'GET',
    path: '/v1/devices',
    scoped: 'ids',
    summary: 'Every device type-detector finds, with its rooms, functions and states by role, as id → device',
    description:
        'Each device lists only the states the caller may read; a device with none is left out. Paging and `fields` as in /v1/states.',
    tag: 'devices',
    permission: READ,
    responses: { 200: json(dictionary(DeviceSchema, 'device id → device'), 'The devices; a page when limit is given') },
    query: Type.Object({ ...filterQuery, ...pageParams('device') }),
    async handler({ input, url }, ctx) {
        const filter: DeviceFilter = { room: input.room, function: input.function, type: input.type, lang: input.lang };
        const listing = listingParams(input, 'device');
        const walkKey = `devices\n${JSON.stringify(filter)}`;
        // a later page reads only its devices; a device gone since the walk began is left out
        return listingReply(ctx, walkKey, listing, url, {
            all: async () => visibleDevices(ctx.data, await ctx.devices.snapshot(), filter),
            some: async ids => visibleDevices(ctx.data, await ctx.devices.snapshot(), filter, ids),
        });
    },
});

/** One device as the caller sees it; 404 when there is none (or none of its states is the caller's to read). */
async function deviceOf(ctx: RequestContext, id: string, lang?: string): Promise<DeviceEntry> {
    const found = await visibleDevices(ctx.data, await ctx.devices.snapshot(), { lang }, [id]);
    const device = found[id];
    if (!device) {
        throw new HttpError('NOT_FOUND', 'Device not found', { context: { id } });
    }
    return device;
}

export const readDeviceRoute = defineRoute({
    method: 'GET',
    path: '/v1/devices/:deviceId',
    scoped: 'ids',
    summary: 'One device: its type, rooms, functions and states by role with their values',
    tag: 'devices',
    permission: READ,
    responses: { 200: json(DeviceSchema, 'The device') },
    errors: [404],
    query: Type.Object({ lang: langParam }),
    async handler({ params, input }, ctx) {
        return Reply.json(await deviceOf(ctx, params.deviceId, input.lang));
    },
});

const RoleResult = Type.Object({
    id: Type.String(),
    status: Type.Integer(),
    val: Type.Optional(Type.Unknown()),
    error: Type.Optional(Type.String()),
});
const WriteAnswer = Type.Object(
    { id: Type.String(), results: Type.Record(Type.String(), RoleResult, { description: 'role → what happened' }) },
    {
        examples: [
            {
                id: 'hm-rpc.0.OEQ0123456.1',
                results: { SET: { id: 'hm-rpc.0.OEQ0123456.1.LEVEL', status: 200, val: 40 } },
            },
        ],
    },
);

export const writeDeviceRoute = defineRoute({
    method: 'PATCH',
    path: '/v1/devices/:deviceId',
    scoped: 'ids',
    summary: 'Write a device by roles: {"SET": 21.5} or {"ON": true, "LEVEL": 40} (ack=false)',
    description:
        'Every value is checked against its state (type, min, max, states, write) before anything is written: one refused value is a 422 and nothing is written. 200 when every role was written; 207 with a result per role when only some were.',
    tag: 'devices',
    permission: WRITE,
    body: 'json',
    // a device has a few dozen roles at most: a larger body is no device write
    bodyLimit: 64 * 1024,
    requestBody: Type.Record(Type.String(), Type.Unknown(), {
        description: 'role → value',
        examples: [{ SET: 21.5 }, { ON: true, LEVEL: 40 }],
    }),
    responses: {
        200: json(WriteAnswer, 'Every role written'),
        207: json(WriteAnswer, 'Some roles written, some refused: the status of each in results'),
    },
    errors: [404],
    async handler({ params, body }, ctx) {
        if (!body || typeof body !== 'object' || Array.isArray(body)) {
            throw new HttpError('INVALID_PARAMS', 'The body must be a JSON object role → value');
        }
        const device = await deviceOf(ctx, params.deviceId);
        const snapshot = await ctx.devices.snapshot();
        const commons = Object.fromEntries(
            Object.entries(device.states).map(([role, state]) => [
                role,
                (snapshot.objects[state.id]?.common ?? {}) as Partial<ioBroker.StateCommon>,
            ]),
        );
        const { status, results } = await writeDeviceRoles(ctx, device, body as Record<string, unknown>, commons);
        if (status >= 400) {
            const first = Object.values(results)[0];
            throw new HttpError(status === 403 ? 'FORBIDDEN' : 'INTERNAL', first.error ?? 'Not written', {
                status,
                context: { id: device.id, results },
            });
        }
        return Reply.json({ id: device.id, results }, status);
    },
});

function enumRoute(category: 'rooms' | 'functions') {
    return defineRoute({
        method: 'GET',
        path: `/v1/${category}`,
        scoped: 'ids',
        summary: `The ${category} (enum.${category}.*) the caller may read, each with the devices in it`,
        tag: 'devices',
        permission: ENUM_READ,
        responses: {
            200: json(
                dictionary(
                    Type.Object({
                        id: Type.String(),
                        name: Type.String(),
                        devices: Type.Array(
                            Type.Object({ id: Type.String(), name: Type.String(), type: Type.String() }),
                        ),
                    }),
                    'enum id → name and devices',
                ),
                `The ${category}`,
            ),
        },
        query: Type.Object({ lang: langParam }),
        async handler({ input }, ctx) {
            return Reply.json(await enumsWithDevices(ctx.data, await ctx.devices.snapshot(), category, input.lang));
        },
    });
}

export const listRoomsRoute = enumRoute('rooms');
export const listFunctionsRoute = enumRoute('functions');
