import { Type } from '@sinclair/typebox';
import { HttpError } from '../http/http-error';
import { AGGREGATES, historyOptions, historyState, readHistory, storeState } from '../messaging/history';
import { convertBodyValue, convertText } from '../states/state-value';
import { stateCommon } from '../states/states';
import { paramsError } from '../http/parse-params';
import { assertInWriteScope } from '../access/read-checks';
import type { RequestContext } from '../context/request-context';
import { defineRoute } from '../routing/route';
import { json, opaque, FreeObject } from '../http/schemas';

/** What a history instance answers for getHistory: values, each {val, ts, ack, …}. */
const HISTORY_VALUES = Type.Array(FreeObject);

const SENDTO = { type: 'other', operation: 'sendto' } as const;

const num = (description: string) => Type.Optional(Type.Number({ description }));
const flag = (description: string) => Type.Optional(Type.Boolean({ description }));

const historyQuery = Type.Object({
    start: num('Start time in ms (default: one week ago, unless count is given)'),
    end: num('End time in ms (default: now + 5000 s)'),
    count: num('Number of values'),
    limit: num('Largest number of values'),
    step: num('Interval in ms for aggregation'),
    aggregate: Type.Optional(
        Type.Union(
            AGGREGATES.map(a => Type.Literal(a)),
            { description: 'Aggregation (default none)' },
        ),
    ),
    percentile: num('Percentile (0-100) for aggregate=percentile'),
    quantile: num('Quantile (0-1) for aggregate=quantile'),
    integralUnit: Type.Optional(Type.String({ description: 'Unit in seconds for aggregate=integral' })),
    integralInterpolation: Type.Optional(Type.String({ description: 'linear or none, for aggregate=integral' })),
    from: flag('Add the from field'),
    ack: flag('Add the ack field'),
    q: flag('Add the q field'),
    addId: flag('Add the id field'),
    ignoreNull: flag('Leave out null values'),
    removeBorderValues: flag('Leave out the values just outside start and end'),
    returnNewestEntries: flag('With count: the newest values instead of the oldest'),
    instance: Type.Optional(
        Type.String({ description: 'History instance (default: the configured dataSource or the system default)' }),
    ),
});

async function historyValues(ctx: RequestContext, id: string, raw: Record<string, unknown>): Promise<unknown[]> {
    const answer = await readHistory(ctx, id, historyOptions(raw), { id });
    if (answer.error) {
        throw new HttpError('BAD_GATEWAY', String(answer.error), { context: { id } });
    }
    return answer.result ?? [];
}

export const getHistoryRoute = defineRoute({
    method: 'GET',
    path: '/v1/getHistory/:stateId',
    scoped: 'ids',
    summary: 'Values of a state from the history instance: [{val, ts, ...}]',
    tag: 'history',
    permission: SENDTO,
    responses: { 200: json(HISTORY_VALUES, 'The values') },
    errors: [404, 408, 502, 504],
    query: historyQuery,
    handler: ({ params, input }, ctx) => historyValues(ctx, params.stateId, input),
});

export const postHistoryRoute = defineRoute({
    method: 'POST',
    path: '/v1/getHistory',
    scoped: 'ids',
    summary: 'Values of a state from the history instance, for a JSON body {id, options}',
    tag: 'history',
    permission: SENDTO,
    responses: { 200: json(HISTORY_VALUES, 'The values') },
    errors: [404, 408, 502, 504],
    body: 'json',
    requestBody: Type.Object({ id: Type.String({ minLength: 1 }), options: Type.Optional(historyQuery) }),
    async handler({ body }, ctx) {
        return historyValues(ctx, body.id, body.options ?? {});
    },
});

export const addHistoryRoute = defineRoute({
    method: 'GET',
    path: '/v1/addHistory/:stateId',
    scoped: 'ids',
    summary: 'Store one value in the history instance; val is converted by the state type',
    tag: 'history',
    permission: SENDTO,
    writesOnGet: true,
    responses: { 200: json(opaque("The history instance's answer"), 'Stored') },
    errors: [404, 408, 502, 504],
    query: Type.Object({
        val: Type.String({ description: 'The value' }),
        ts: num('Time in ms (default now)'),
        ack: flag('Acknowledged'),
        q: num('Quality'),
        from: Type.Optional(Type.String({ description: 'Source, e.g. system.adapter.x.0' })),
    }),
    async handler({ params, input }, ctx) {
        const id = params.stateId;
        assertInWriteScope(ctx, id, { stateId: id });
        const common = stateCommon(await ctx.data.getObject(id, { stateId: id }));
        if (!common?.type) {
            throw new HttpError('NOT_FOUND', 'State not found', { context: { stateId: id } });
        }
        return storeState(ctx, id, historyState(input, convertText(input.val, common.type, id)), { id });
    },
});

export const postAddHistoryRoute = defineRoute({
    method: 'POST',
    path: '/v1/addHistory',
    scoped: 'ids',
    summary: 'Store one value in the history instance, for a JSON body {id, state: {val, ts, ack, q, from}}',
    tag: 'history',
    permission: SENDTO,
    responses: { 200: json(opaque("The history instance's answer"), 'Stored') },
    errors: [404, 408, 502, 504],
    body: 'json',
    requestBody: Type.Object({
        id: Type.String({ minLength: 1 }),
        state: Type.Object({
            val: Type.Unknown(),
            ts: Type.Optional(Type.Number()),
            ack: Type.Optional(Type.Boolean()),
            q: Type.Optional(Type.Number()),
            from: Type.Optional(Type.String()),
        }),
    }),
    async handler({ body }, ctx) {
        const { id, state } = body;
        if (!('val' in state)) {
            throw paramsError([{ param: 'state.val', problem: 'required' }], ['id', 'state']);
        }
        assertInWriteScope(ctx, id);
        const common = stateCommon(await ctx.data.getObject(id, { id }));
        return storeState(ctx, id, historyState(state, convertBodyValue(state.val, common?.type, id)), { id });
    },
});
