import type { IncomingHttpHeaders } from 'node:http';
import { Type } from '@sinclair/typebox';
import { credentialsOf } from '../auth/authenticate';
import { REFRESH_TTL_SECONDS, type TokenAnswer } from '../auth/tokens';
import { HttpError } from '../http/http-error';
import { json } from '../http/schemas';
import { defineRoute, type Route } from '../routing/route';
import type { Query } from '../http/query';
import type { RequestContext } from '../context/request-context';
import { Reply } from '../http/send';

const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };
/** Token requests are a few fields: nobody gets to make an unauthenticated route buffer more. */
export const OAUTH_BODY_LIMIT = 16 * 1024;

/** RFC 6749 error members, plus the `name`/`message`/`statusCode` members 4.0.2 clients read. */
function oauthError(status: number, error: string, description: string): Reply {
    return Reply.json(
        { error, error_description: description, name: error, message: description, statusCode: status },
        status,
        NO_STORE,
    );
}

function cookie(token: string, ctx: RequestContext, maxAge?: number): string {
    const parts = [`access_token=${token}`, 'Path=/', 'HttpOnly', 'SameSite=Strict'];
    if (maxAge !== undefined) {
        parts.push(`Max-Age=${maxAge}`);
    }
    if (ctx.meta.config.secure) {
        parts.push('Secure');
    }
    return parts.join('; ');
}

/** A token request's fields: the query, and a form or JSON body (POST) over it. */
interface TokenRequest {
    query: Query;
    body?: Record<string, unknown>;
    remoteAddress: string;
}

function params({ query, body }: TokenRequest): Record<string, string> {
    const merged: Record<string, unknown> = { ...query, ...(body ?? {}) };
    return Object.fromEntries(
        Object.entries(merged).map(([k, v]) => [k, v === null || v === undefined ? '' : String(v)]),
    );
}

async function token(req: TokenRequest, ctx: RequestContext): Promise<Reply> {
    const p = params(req);
    const ttl = ctx.meta.config.ttl;
    let answer: TokenAnswer | null;
    if (p.grant_type === 'password') {
        if (!p.username || !p.password) {
            return oauthError(400, 'invalid_request', 'Missing parameter: `username` and `password` are required');
        }
        try {
            const user = await ctx.auth.credentials.check(p.username, p.password, req.remoteAddress);
            answer = await ctx.auth.sessions.issue(user, ttl);
        } catch (err) {
            if (err instanceof HttpError && err.status === 401) {
                return oauthError(400, 'invalid_grant', 'Invalid grant: user credentials are invalid');
            }
            throw err;
        }
    } else if (p.grant_type === 'refresh_token') {
        answer = await ctx.auth.sessions.refresh(p.refresh_token, ttl);
        if (!answer) {
            return oauthError(400, 'invalid_grant', 'Invalid grant: refresh token is invalid');
        }
    } else {
        return oauthError(
            400,
            'unsupported_grant_type',
            'Unsupported grant type: `grant_type` must be password or refresh_token',
        );
    }
    const maxAge = p.stayloggedin === 'true' ? REFRESH_TTL_SECONDS : undefined;
    return Reply.json(answer, 200, { ...NO_STORE, 'Set-Cookie': cookie(answer.access_token, ctx, maxAge) });
}

function cookieToken(cookie: string | undefined): string | undefined {
    return /(?:^|;\s*)access_token=([^;]+)/.exec(cookie ?? '')?.[1];
}

const TOKENS = json(
    Type.Object(
        {
            access_token: Type.String(),
            refresh_token: Type.String(),
            token_type: Type.String(),
            expires_in: Type.Number(),
        },
        { additionalProperties: true },
    ),
    'The tokens (also set as the access_token cookie)',
);
const DONE = json(Type.Object({}, { additionalProperties: true }), 'Done');

/** What every login route shares: open to anyone, so its body stays small. */
const OAUTH = { tag: 'auth', permission: null, public: true, bodyLimit: OAUTH_BODY_LIMIT } satisfies Partial<Route>;

const tokenQuery = Type.Object({
    grant_type: Type.Union([Type.Literal('password'), Type.Literal('refresh_token')]),
    username: Type.Optional(Type.String()),
    password: Type.Optional(Type.String({ format: 'password' })),
    refresh_token: Type.Optional(Type.String()),
    stayloggedin: Type.Optional(Type.Boolean({ description: 'The cookie outlives the browser session' })),
});

async function logout(req: { query: Query; headers: IncomingHttpHeaders }, ctx: RequestContext): Promise<Reply> {
    const value = req.query.token || cookieToken(req.headers.cookie) || credentialsOf(req.headers, {}).token;
    if (value) {
        await ctx.auth.sessions.revoke(value);
    }
    return Reply.json({ result: 'OK' }, 200, { ...NO_STORE, 'Set-Cookie': cookie('', ctx, 0) });
}

/** OAuth2 password and refresh grants, RFC 7009 revocation and logout; present only while `auth` is on. */
export const oauthRoutes: Route[] = [
    defineRoute({
        ...OAUTH,
        method: 'POST',
        path: '/oauth/token',
        summary: 'Get an access and a refresh token (form or JSON body)',
        body: 'form',
        requestBody: tokenQuery,
        responses: { 200: TOKENS },
        errors: [400, 429],
        handler: token,
    }),
    // a missing or unknown grant_type is OAuth's own 400 unsupported_grant_type, not a 422
    defineRoute({
        ...OAUTH,
        method: 'GET',
        path: '/oauth/token',
        summary: 'Get tokens with query parameters (documented by 4.0.2; prefer POST)',
        query: Type.Object({
            ...tokenQuery.properties,
            grant_type: Type.Optional(Type.String({ description: 'password or refresh_token' })),
        }),
        responses: { 200: TOKENS },
        errors: [400, 429],
        handler: token,
    }),
    defineRoute({
        ...OAUTH,
        method: 'POST',
        path: '/oauth/revoke',
        summary: 'Revoke an access or refresh token and its partner (RFC 7009: always 200)',
        body: 'form',
        requestBody: Type.Object({ token: Type.String(), token_type_hint: Type.Optional(Type.String()) }),
        responses: { 200: DONE },
        async handler(req, ctx) {
            const { token: value } = params(req);
            if (value) {
                await ctx.auth.sessions.revoke(value);
            }
            return Reply.json({}, 200, NO_STORE);
        },
    }),
    ...(['GET', 'POST'] as const).map(method =>
        defineRoute({
            ...OAUTH,
            method,
            path: '/logout',
            summary: 'End the login session of the token (cookie, ?token= or Bearer)',
            responses: { 200: DONE },
            handler: logout,
        }),
    ),
];
