import { Type, type TSchema } from '@sinclair/typebox';

/** Any JSON value; text in the query that starts with `{` or `[` is parsed as JSON. */
export function anyJson(description: string): TSchema {
    return Type.Union(
        [
            Type.Object({}, { additionalProperties: true }),
            Type.Array(Type.Unknown()),
            Type.String(),
            Type.Number(),
            Type.Boolean(),
            Type.Null(),
        ],
        { description },
    );
}

/** The most ids a `list` (getObjects) or an id array (getStates) may name: each costs a database read. */
export const MAX_LIST_IDS = 10_000;

/** A JSON array of ids, at most MAX_LIST_IDS (422 naming the parameter beyond). */
export function idList(options: { description?: string } = {}) {
    return Type.Array(Type.String(), { maxItems: MAX_LIST_IDS, ...options });
}

/*
 * Answer schemas shared by commands and routes. They describe the shapes 4.0.2 clients read; where
 * ioBroker allows free fields (`common`, `native`, a state's extra fields) they stay open.
 */

/** An object with any members. */
export const FreeObject = Type.Object({}, { additionalProperties: true });

/** Anything an instance or js-controller may answer; described, not constrained. */
export function opaque(description: string): TSchema {
    return Type.Unknown({ description });
}

export const StateSchema = Type.Object(
    {
        val: Type.Unknown({ description: 'The value: number, string, boolean, null, or JSON' }),
        ack: Type.Boolean({ description: 'Acknowledged by the owning adapter' }),
        ts: Type.Number({ description: 'Time of the last write, ms since 1970' }),
        lc: Type.Optional(Type.Number({ description: 'Time of the last change of the value' })),
        from: Type.Optional(Type.String({ description: 'Who wrote it, e.g. system.adapter.rest-api.0' })),
        q: Type.Optional(Type.Number({ description: 'Quality, 0 = good' })),
        user: Type.Optional(Type.String()),
        c: Type.Optional(Type.String({ description: 'Comment' })),
        expire: Type.Optional(Type.Unknown({ description: 'Expiry as js-controller keeps it' })),
    },
    {
        additionalProperties: true,
        title: 'State',
        examples: [
            { val: 21.5, ack: true, ts: 1795400000000, lc: 1795399000000, from: 'system.adapter.hm-rpc.0', q: 0 },
        ],
    },
);

export const ObjectSchema = Type.Object(
    {
        _id: Type.String(),
        type: Type.String({
            description: 'state, channel, device, folder, enum, instance, adapter, meta, user, group, …',
        }),
        common: Type.Optional(FreeObject),
        native: Type.Optional(FreeObject),
        acl: Type.Optional(FreeObject),
    },
    {
        additionalProperties: true,
        title: 'Object',
        examples: [
            {
                _id: '0_userdata.0.temperature',
                type: 'state',
                common: {
                    name: 'Temperature',
                    type: 'number',
                    role: 'value.temperature',
                    unit: '°C',
                    read: true,
                    write: false,
                },
                native: {},
            },
        ],
    },
);

/** An object as written: what the client sent, `_id` not always among it. */
export const WrittenObjectSchema = Type.Object(
    {
        _id: Type.Optional(Type.String()),
        type: Type.String(),
        common: Type.Optional(FreeObject),
        native: Type.Optional(FreeObject),
    },
    { additionalProperties: true, title: 'WrittenObject' },
);

export function dictionary(value: TSchema, description: string): TSchema {
    return Type.Record(Type.String(), value, { description });
}

/** `results: []`: the command answers nothing but success. */
export const NoResults = Type.Array(Type.Unknown(), { maxItems: 0, description: 'Always empty' });

export const ErrorSchema = Type.Object(
    {
        error: Type.String({ description: 'What went wrong' }),
        details: Type.Optional(
            Type.Array(FreeObject, { description: 'One entry per parameter problem: {param, problem}' }),
        ),
    },
    { additionalProperties: true, title: 'Error', examples: [{ error: 'permissionError' }] },
);

/** A listed state: the whole state, or only the fields asked for with `fields`. */
export const ListedState = Type.Partial(StateSchema, { title: 'ListedState' });
/** A listed object: the whole object, or only the members asked for with `fields`. */
export const ListedObject = Type.Partial(ObjectSchema, { title: 'ListedObject' });

/** One answer of `GET /v1/state/{stateId}`: the state with its `id` (only `id` when it has no value yet); with withInfo merged with its object. */
export const StateEntrySchema = Type.Object(
    {
        id: Type.String(),
        val: Type.Optional(Type.Unknown()),
        ack: Type.Optional(Type.Boolean()),
        ts: Type.Optional(Type.Number()),
    },
    {
        additionalProperties: true,
        title: 'StateEntry',
        examples: [
            {
                id: '0_userdata.0.temperature',
                val: 21.5,
                ack: true,
                ts: 1795400000000,
                lc: 1795399000000,
                from: 'system.adapter.hm-rpc.0',
                q: 0,
            },
        ],
    },
);

export function json(schema: TSchema, description: string): { description: string; content: Record<string, TSchema> } {
    return { description, content: { 'application/json': schema } };
}

/**
 * A fixed-position array in JSON Schema 2020-12 (OpenAPI 3.1): `prefixItems`, of which the first
 * `required` must be there, and no more than those (`maxItems`; linters want an `items` too).
 * TypeBox's Tuple writes the older `items: [...]` form.
 */
export function tuple<T extends TSchema[]>(items: [...T], required: number, description: string): TSchema {
    return Type.Unsafe({
        type: 'array',
        prefixItems: items,
        items: {},
        minItems: required,
        maxItems: items.length,
        description,
    });
}
