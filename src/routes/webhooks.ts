import { Type } from '@sinclair/typebox';
import { isAdministrator } from '../access/rules';
import { HttpError } from '../http/http-error';
import type { RequestContext } from '../context/request-context';
import { defineRoute, type RouteRequest } from '../routing/route';
import { json } from '../http/schemas';
import { MAX_PAYLOAD_BYTES, parsePayload } from '../webhooks/payload';
import { authentic, mayBeAuthentic, NAME_PATTERN, wrongSecret } from '../webhooks/receivers';
import { networkOf } from '../auth/brute-force';

/** Wrong secrets are damped per receiver and network alone: a lock across addresses would let anyone hold a device's deliveries off. */
function webhookGuardKey(name: string, address: string): string {
    return `webhook:${name}|${networkOf(address)}`;
}

// creating receivers writes objects; only administrators may, because a receiver opens a URL without login
const MANAGE = { type: 'object', operation: 'write' } as const;

const nameParams = Type.Object({
    name: Type.String({ pattern: NAME_PATTERN, description: 'Receiver name: letters, digits, _ and -, up to 64' }),
});

function assertAdministrator(ctx: RequestContext): void {
    if (!isAdministrator(ctx.acl)) {
        throw new HttpError('FORBIDDEN', 'permissionError');
    }
}

/** Where senders post: this server as the client reached it (through a trusted proxy: its public origin and prefix). */
function receiverUrl(req: RouteRequest, secure: boolean, name: string): string {
    if (req.forwarded?.origin) {
        return `${req.forwarded.origin}${req.prefix}/webhooks/${name}`;
    }
    const host =
        typeof req.headers.host === 'string' && /^[\w.:[\]-]+$/.test(req.headers.host) ? req.headers.host : '127.0.0.1';
    return `${secure ? 'https' : 'http'}://${host}${req.prefix}/webhooks/${name}`;
}

const ReceiverSchema = Type.Object({
    name: Type.String(),
    url: Type.String({ description: 'Where senders post' }),
    secret: Type.String({
        description: 'Shown only in this answer: as ?key=, or the key of the HMAC-SHA256 signature',
    }),
});

export const putWebhookRoute = defineRoute({
    method: 'PUT',
    path: '/v1/webhooks/:name',
    summary: 'Create or replace an inbound webhook receiver (administrators)',
    description:
        'Devices and services then POST their JSON (or a form, or text) to /webhooks/<name>; every value becomes a state under ' +
        'rest-api.<instance>.webhooks.<name>. Without a secret a random one is made. The secret is shown only in this answer.',
    tag: 'webhooks',
    permission: MANAGE,
    params: nameParams,
    body: 'json',
    optionalBody: true,
    requestBody: Type.Object({
        secret: Type.Optional(
            Type.String({
                minLength: 8,
                maxLength: 256,
                description: 'At least 8 characters; `whsec_<base64>` for Standard Webhooks',
            }),
        ),
    }),
    responses: { 200: json(ReceiverSchema, 'The receiver, with its secret') },
    noStore: true,
    async handler(req, ctx) {
        assertAdministrator(ctx);
        const secret = req.body?.secret;
        const receiver = await ctx.events.receivers.put(req.params.name, secret);
        return {
            name: receiver.name,
            url: receiverUrl(req, ctx.meta.config.secure, receiver.name),
            secret: receiver.secret,
        };
    },
});

export const listWebhooksRoute = defineRoute({
    method: 'GET',
    path: '/v1/webhooks',
    summary: 'The inbound webhook receivers, without secrets (administrators)',
    tag: 'webhooks',
    permission: MANAGE,
    responses: {
        200: json(
            Type.Array(
                Type.Object({
                    name: Type.String(),
                    url: Type.String(),
                    lastReceived: Type.Union([Type.Number(), Type.Null()], {
                        description: 'ms since 1970, null before the first post',
                    }),
                }),
            ),
            'Receivers by name',
        ),
    },
    async handler(req, ctx) {
        assertAdministrator(ctx);
        const all = await ctx.events.receivers.list();
        return all.map(r => ({
            name: r.name,
            url: receiverUrl(req, ctx.meta.config.secure, r.name),
            lastReceived: r.lastReceived,
        }));
    },
});

export const deleteWebhookRoute = defineRoute({
    method: 'DELETE',
    path: '/v1/webhooks/:name',
    summary: 'Remove a receiver; its states stay unless purge=true (administrators)',
    tag: 'webhooks',
    permission: MANAGE,
    params: nameParams,
    query: Type.Object({ purge: Type.Optional(Type.Boolean({ description: 'Delete its states too' })) }),
    responses: { 200: json(Type.Object({ name: Type.String(), purged: Type.Boolean() }), 'Removed') },
    errors: [404],
    async handler(req, ctx) {
        assertAdministrator(ctx);
        const purge = req.input.purge === true;
        if (!(await ctx.events.receivers.delete(req.params.name, purge))) {
            throw new HttpError('NOT_FOUND', 'Webhook receiver not found', { context: { name: req.params.name } });
        }
        return { name: req.params.name, purged: purge };
    },
});

export const receiveWebhookRoute = defineRoute({
    method: 'POST',
    path: '/webhooks/:name',
    summary:
        'Inbound webhook: the payload becomes states under rest-api.<instance>.webhooks.<name> (the secret authenticates)',
    description:
        "No login: the receiver's secret as ?key=<secret>, or an HMAC-SHA256 signature of the body in X-Webhook-Signature " +
        '(sha256=<hex>) or in the Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature). Every leaf of a ' +
        'JSON object or array (arrays by index; at most 500 values and 8 levels) or form field becomes a state, created on first ' +
        'sight (read-only, its type from the value); `raw` keeps the body, as text; `lastReceived` the time. A wrong secret is 401 ' +
        'and damped like passwords; nothing is written on any error.',
    tag: 'webhooks',
    permission: null,
    public: true,
    // it writes states: while the database is away it answers 503 like every route that needs it
    offline: false,
    params: nameParams,
    query: Type.Object({
        key: Type.Optional(Type.String({ description: 'The receiver secret (instead of a signature)' })),
    }),
    body: 'raw',
    bodyLimit: MAX_PAYLOAD_BYTES,
    // anyone may post here: the receiver and what of its secret can be checked come before any body is read
    async beforeBody(req, { events }) {
        const { name } = req.params;
        const guardKey = webhookGuardKey(name, req.remoteAddress);
        events.webhookGuard.assertAllowed(req.remoteAddress, guardKey);
        const receiver = await events.receivers.get(name);
        if (!receiver) {
            throw new HttpError('NOT_FOUND', 'Webhook receiver not found', { context: { name } });
        }
        if (!mayBeAuthentic(receiver.secret, req.headers, req.input.key)) {
            events.webhookGuard.failed(req.remoteAddress, guardKey);
            throw wrongSecret();
        }
    },
    responses: {
        200: json(
            Type.Object({
                name: Type.String(),
                states: Type.Integer({ description: 'Values written from the payload' }),
                lastReceived: Type.Number(),
            }),
            'Written',
        ),
    },
    errors: [400, 401, 404, 413, 422, 429, 503],
    async handler(req, ctx) {
        const { events } = ctx;
        const { name } = req.params;
        const guardKey = webhookGuardKey(name, req.remoteAddress);
        // read again: the receiver may have gone while the body came in
        const receiver = await events.receivers.get(name);
        if (!receiver) {
            throw new HttpError('NOT_FOUND', 'Webhook receiver not found', { context: { name } });
        }
        const body = req.body;
        if (!authentic(receiver.secret, body, req.headers, req.input.key)) {
            events.webhookGuard.failed(req.remoteAddress, guardKey);
            throw wrongSecret();
        }
        events.webhookGuard.succeeded(req.remoteAddress, guardKey);
        const { value, raw } = parsePayload(body, String(req.headers['content-type'] ?? ''));
        const states = await events.receivers.write(name, value, raw);
        return { name, states, lastReceived: Date.now() };
    },
});

export const webhookRoutes = [putWebhookRoute, listWebhooksRoute, deleteWebhookRoute, receiveWebhookRoute];
