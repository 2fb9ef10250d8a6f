import { Type } from '@sinclair/typebox';

const anyObject = Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]);

/** The event bodies every channel (long polling, URL hooks, server-sent events) carries. */
export const EVENT_BODY = Type.Union([
    Type.Object(
        {
            id: Type.String(),
            state: anyObject,
            device: Type.Optional(Type.String({ description: 'Device subscriptions only: the device of the state' })),
            role: Type.Optional(
                Type.String({ description: 'Device subscriptions only: its role there (SET, ACTUAL, ...)' }),
            ),
        },
        { description: 'A state changed (null: deleted)' },
    ),
    Type.Object({ id: Type.String(), obj: anyObject }, { description: 'An object changed (null: deleted)' }),
    Type.Object(
        { overflow: Type.Literal(true), dropped: Type.Optional(Type.Integer()) },
        { description: 'Events were lost: the queue or replay buffer overflowed' },
    ),
    Type.Object({ disconnect: Type.Literal(true) }, { description: 'The last event: the adapter stops' }),
    Type.Object({ test: Type.Literal(true) }, { description: 'URL hooks only: the validation and health check call' }),
]);
