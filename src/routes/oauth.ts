import { Type } from '@sinclair/typebox';
import { credentialsOf } from '../auth/authenticate';
import { REFRESH_TTL_SECONDS, type TokenAnswer } from '../auth/tokens';
import { HttpError } from '../http/http-error';
import { json } from '../http/schemas';
import { defineRoute, type Route, type RouteRequest } from '../http/route';
import type { RequestContext } from '../request-context';
import { Reply } from '../http/send';

const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };
/** Token requests are a few fields: nobody gets to make an unauthenticated route buffer more. */
export const OAUTH_BODY_LIMIT = 16 * 1024;

/** RFC 6749 error members, plus the `name`/`message`/`statusCode` members 4.0.2 clients read. */
function oauthError(status: number, error: string, description: string): Reply {
    return Reply.json({ error, error_description: description, name: error, message: description, statusCode: status }, status, NO_STORE);
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

function params(req: RouteRequest): Record<string, string> {
    const merged: Record<string, unknown> = { ...req.query, ...((req.body as Record<string, unknown>) ?? {}) };
    return Object.fromEntries(Object.entries(merged).map(([k, v]) => [k, v === null || v === undefined ? '' : String(v)]));
}

async function token(req: RouteRequest, ctx: RequestContext): Promise<Reply> {
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
        return oauthError(400, 'unsupported_grant_type', 'Unsupported grant type: `grant_type` must be password or refresh_token');
    }
    const maxAge = p.stayloggedin === 'true' ? REFRESH_TTL_SECONDS : undefined;
    return Reply.json(answer, 200, { ...NO_STORE, 'Set-Cookie': cookie(answer.access_token, ctx, maxAge) });
}

function cookieToken(req: RouteRequest): string | undefined {
    return /(?:^|;\s*)access_token=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
}

const TOKENS = json(
    Type.Object({ access_token: Type.String(), refresh_token: Type.String(), token_type: Type.String(), expires_in: Type.Number() }, { additionalProperties: true }),
    'The tokens (also set as the access_token cookie)',
);
const DONE = json(Type.Object({}, { additionalProperties: true }), 'Done');

const oauthRoute = (method: Route['method'], path: string, summary: string, handler: Route['handler'], extra: Partial<Route> = {}): Route =>
    defineRoute({ method, path, summary, tag: 'auth', permission: null, public: true, bodyLimit: OAUTH_BODY_LIMIT, handler, responses: { '200': DONE }, ...extra });

const tokenQuery = Type.Object({
    grant_type: Type.Union([Type.Literal('password'), Type.Literal('refresh_token')]),
    username: Type.Optional(Type.String()),
    password: Type.Optional(Type.String({ format: 'password' })),
    refresh_token: Type.Optional(Type.String()),
    stayloggedin: Type.Optional(Type.Boolean({ description: 'The cookie outlives the browser session' })),
});

/** OAuth2 password and refresh grants, RFC 7009 revocation and logout; present only while `auth` is on. */
export const oauthRoutes: Route[] = [
    oauthRoute('POST', '/oauth/token', 'Get an access and a refresh token (form or JSON body)', token, { body: 'form', requestBody: tokenQuery, responses: { '200': TOKENS }, errors: [400, 429] }),
    // a missing or unknown grant_type is OAuth's own 400 unsupported_grant_type, not a 422
    oauthRoute('GET', '/oauth/token', 'Get tokens with query parameters (documented by 4.0.2; prefer POST)', token, {
        query: Type.Object({ ...tokenQuery.properties, grant_type: Type.Optional(Type.String({ description: 'password or refresh_token' })) }),
        responses: { '200': TOKENS },
        errors: [400, 429],
    }),
    oauthRoute(
        'POST',
        '/oauth/revoke',
        'Revoke an access or refresh token and its partner (RFC 7009: always 200)',
        async (req, ctx) => {
            const { token: value } = params(req);
            if (value) {
                await ctx.auth.sessions.revoke(value);
            }
            return Reply.json({}, 200, NO_STORE);
        },
        { body: 'form', requestBody: Type.Object({ token: Type.String(), token_type_hint: Type.Optional(Type.String()) }) },
    ),
    ...(['GET', 'POST'] as const).map(method =>
        oauthRoute(method, '/logout', 'End the login session of the token (cookie, ?token= or Bearer)', async (req, ctx) => {
            const value = req.query.token || cookieToken(req) || credentialsOf(req.headers, {}).token;
            if (value) {
                await ctx.auth.sessions.revoke(value);
            }
            return Reply.json({ result: 'OK' }, 200, { ...NO_STORE, 'Set-Cookie': cookie('', ctx, 0) });
        }),
    ),
];
