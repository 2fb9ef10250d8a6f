import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';

export default defineCommand({
    name: 'getObjectView',
    summary: 'Query an object view, e.g. design=system, search=state, params={"startkey":"a","endkey":"a.\\u9999"}',
    params: Type.Object({
        design: Type.String({ description: 'View design, e.g. system' }),
        search: Type.String({ description: 'View name, e.g. state, instance, adapter, enum' }),
        params: Type.Optional(
            Type.Object(
                { startkey: Type.Optional(Type.String()), endkey: Type.Optional(Type.String()) },
                {
                    additionalProperties: true,
                    description: 'JSON with startkey and endkey',
                },
            ),
        ),
    }),
    permission: { type: 'object', operation: 'list' },
    effect: 'read',
    envelope: 'result',
    result: Type.Union([
        Type.Object(
            {
                rows: Type.Array(
                    Type.Object(
                        { id: Type.String(), value: Type.Optional(Type.Unknown()) },
                        { additionalProperties: true },
                    ),
                ),
            },
            { additionalProperties: true },
        ),
        Type.Null(),
    ]),
    async handler({ design, search, params }, ctx) {
        return ctx.data.objectView(design, search, params ?? {});
    },
});
