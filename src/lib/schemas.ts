import { Type, type TSchema } from '@sinclair/typebox';

/** Any JSON value; text in the query that starts with `{` or `[` is parsed as JSON. */
export function anyJson(description: string): TSchema {
    return Type.Union(
        [Type.Object({}, { additionalProperties: true }), Type.Array(Type.Unknown()), Type.String(), Type.Number(), Type.Boolean(), Type.Null()],
        { description },
    );
}
