import { Type, type Static } from '@sinclair/typebox';
import { inertHeaders } from '../http/active-content';
import { HttpError } from '../http/http-error';
import {
    assertInstanceAlive,
    assertMessageAllowed,
    DEFAULT_MESSAGE_TIMEOUT_MS,
    instanceName,
    MAX_MESSAGE_TIMEOUT_MS,
} from '../messaging/messaging';
import { boundedMessage, sendToBounded } from '../messaging/history';
import { paramsError } from '../http/parse-params';
import { isTrueFlag } from '../http/query';
import { MAX_JSON_DEPTH, tooDeep } from '../http/read-body';
import { defineRoute, type RouteRequest } from '../routing/route';
import { opaque } from '../http/schemas';
import type { RequestContext } from '../context/request-context';
import { Reply } from '../http/send';

const SENDTO = { type: 'other', operation: 'sendto' } as const;

/** `data` from the query, converted as 4.0.2 did: null, booleans, numbers, JSON, else the text. */
function dataFromText(text: string | null | undefined): unknown {
    if (text === null || text === undefined || text === 'undefined') {
        return undefined;
    }
    const trimmed = text.trim();
    if (
        trimmed === 'null' ||
        trimmed === 'true' ||
        trimmed === 'false' ||
        (trimmed !== '' && Number.isFinite(Number(trimmed)))
    ) {
        return JSON.parse(trimmed);
    }
    if (/^\{[\s\S]*\}$|^\[[\s\S]*\]$/.test(trimmed)) {
        if (tooDeep(trimmed)) {
            throw paramsError(
                [{ param: 'data', problem: `nested deeper than ${MAX_JSON_DEPTH} levels` }],
                ['message', 'data'],
            );
        }
        try {
            return JSON.parse(trimmed);
        } catch {
            return text;
        }
    }
    return text;
}

interface SendToRequest {
    message: unknown;
    data: unknown;
    timeout: unknown;
    noResponse: unknown;
    responseContentType: unknown;
}

/** Body values win: message and timeout when truthy, the others whenever they are given (4.0.2's precedence). */
function sendToRequest({ input, body }: SendToInput): SendToRequest {
    const b: SendToBody = body ?? {};
    return {
        message: b.message || input.message,
        timeout: b.timeout || input.timeout,
        data: b.data !== undefined ? b.data : dataFromText(input.data),
        noResponse: b.noResponse !== undefined ? b.noResponse : input.noResponse,
        responseContentType: b.responseContentType !== undefined ? b.responseContentType : input.responseContentType,
    };
}

async function ask(ctx: RequestContext, instance: string, request: SendToRequest): Promise<unknown> {
    const timeout = Math.min(
        Math.max(parseInt(String(request.timeout), 10) || DEFAULT_MESSAGE_TIMEOUT_MS, 1),
        MAX_MESSAGE_TIMEOUT_MS,
    );
    try {
        return await sendToBounded(ctx, instance, String(request.message), request.data, timeout);
    } catch (err) {
        if (err instanceof HttpError && err.code === 'TIMEOUT') {
            throw new HttpError('TIMEOUT_408', 'timeout');
        }
        throw err;
    }
}

/** The GET (query only) and the POST (a body too) request alike. */
type SendToBody = Static<typeof sendToBody>;
type SendToInput = RouteRequest<{ instance: string }, Static<typeof sendToQuery>, SendToBody | undefined>;

async function sendTo(req: SendToInput, ctx: RequestContext): Promise<unknown> {
    const request = sendToRequest(req);
    if (!request.message) {
        throw new HttpError('INVALID_PARAMS', 'No message provided');
    }
    const instance = instanceName(req.params.instance);
    await assertInstanceAlive(ctx, instance, { instance });
    await assertMessageAllowed(ctx, instance, String(request.message), request.data);
    if (isTrueFlag(request.noResponse)) {
        // bounded too: history answers into the adapter's message box, read or not
        const { message } = await boundedMessage(ctx, instance, String(request.message), request.data);
        ctx.data.sendTo(instance, String(request.message), message);
        return { result: 'sent' };
    }
    const reply = await ask(ctx, instance, request);
    if (!request.responseContentType) {
        return Reply.json(reply ?? null);
    }
    const answer = (reply ?? {}) as { error?: unknown; result?: unknown };
    if (answer.error) {
        throw new HttpError('NOT_IMPLEMENTED', String(answer.error), { context: { instance } });
    }
    const content = answer.result !== undefined ? answer.result : reply;
    const type = String(request.responseContentType);
    return typeof content === 'string'
        ? Reply.untrusted(content, type)
        : Reply.json(content ?? null, 200, { 'Content-Type': type, ...inertHeaders(type) });
}

const SENDTO_ANSWERS = {
    200: {
        description:
            'The instance\'s reply as it is (or {"result":"sent"} with noResponse); with responseContentType that type',
        content: {
            'application/json': opaque("The instance's reply: any JSON it sent, or null when it sent nothing"),
            '*/*': Type.String(),
        },
    },
};

/** The same in the query and in a POST body. */
const timeoutParam = Type.Optional(
    Type.Integer({
        minimum: 1,
        maximum: MAX_MESSAGE_TIMEOUT_MS,
        'x-clamp': true,
        description: `ms to wait for the reply (default ${DEFAULT_MESSAGE_TIMEOUT_MS}; larger values are capped at ${MAX_MESSAGE_TIMEOUT_MS})`,
    }),
);

const sendToQuery = Type.Object({
    // required, but refused by the handler with 4.0.2's own text when missing
    message: Type.Optional(Type.String({ description: 'The command of the message, e.g. getHistory (required)' })),
    data: Type.Optional(Type.String({ description: 'The message data: null, true/false, a number, JSON, or text' })),
    noResponse: Type.Optional(Type.Boolean({ description: 'Do not wait for a reply; answers {"result":"sent"}' })),
    timeout: timeoutParam,
    responseContentType: Type.Optional(
        Type.String({
            description: "Answer the reply's result with this Content-Type; 501 when the reply has an error",
        }),
    ),
});

const sendToBody = Type.Object({
    message: Type.Optional(Type.String({ description: "The command; the query's message when left out" })),
    data: Type.Optional(Type.Unknown()),
    noResponse: Type.Optional(Type.Boolean()),
    timeout: timeoutParam,
    responseContentType: Type.Optional(Type.String()),
});

const summary = 'Send a message to an instance and answer its reply (408 on timeout; noResponse: do not wait)';

export const sendToGetRoute = defineRoute({
    method: 'GET',
    path: '/v1/sendto/:instance',
    summary,
    responses: SENDTO_ANSWERS,
    errors: [404, 408, 501],
    tag: 'sendto',
    permission: SENDTO,
    // a message may switch or send anything (scripts, notifications)
    writesOnGet: true,
    query: sendToQuery,
    handler: sendTo,
});

export const sendToPostRoute = defineRoute({
    method: 'POST',
    path: '/v1/sendto/:instance',
    summary: `${summary}; parameters as a JSON body, data of any JSON type`,
    responses: SENDTO_ANSWERS,
    errors: [404, 408, 501],
    tag: 'sendto',
    permission: SENDTO,
    query: sendToQuery,
    body: 'json',
    // message and the rest may come from the query instead, as in 4.0.2
    optionalBody: true,
    requestBody: sendToBody,
    handler: sendTo,
});
