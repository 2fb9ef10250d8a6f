import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';
import { HttpError } from '../src/http/http-error';
import { readHistory } from '../src/messaging/history';
import { FreeObject, tuple } from '../src/http/schemas';

export default defineCommand({
    name: 'getHistory',
    summary: 'Values of a state from a history instance, as [values, step, sessionId]',
    params: Type.Object({
        id: Type.String({ minLength: 1, description: 'State id' }),
        options: Type.Optional(
            Type.Union([Type.Object({}, { additionalProperties: true }), Type.String()], {
                description: 'JSON options {start, end, count, aggregate, instance, ...}, or just the instance name',
            }),
        ),
    }),
    permission: { type: 'state', operation: 'read' },
    effect: 'read',
    envelope: 'results',
    result: tuple(
        [
            Type.Array(FreeObject, { description: 'Values {val, ts, ack, …}' }),
            Type.Union([Type.Number(), Type.Null()], { description: 'step (null without an aggregate)' }),
            Type.Unknown({ description: 'sessionId' }),
        ],
        1,
        '[values, step, sessionId]',
    ),
    errors: [404, 408, 502, 504],
    async handler({ id, options }, ctx) {
        const opts = typeof options === 'string' ? { instance: options } : ((options ?? {}) as Record<string, unknown>);
        const answer = await readHistory(ctx, id, opts);
        if (answer.error) {
            throw new HttpError('BAD_GATEWAY', String(answer.error), { context: { results: [] } });
        }
        return [answer.result ?? [], answer.step, answer.sessionId];
    },
});
