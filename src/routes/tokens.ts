import { Type } from '@sinclair/typebox';
import { isAdministrator } from '../access/rules';
import type { NewToken } from '../auth/api-tokens';
import { ownerOf } from '../access/owner';
import { safePattern } from '../access/patterns';
import { ScopeSchema, unknownCommands } from '../access/scope';
import { HttpError } from '../http/http-error';
import { paramsError } from '../http/parse-params';
import type { RequestContext } from '../context/request-context';
import { defineRoute } from '../routing/route';
import { json } from '../http/schemas';
import { Reply } from '../http/send';
import { NO_STORE } from '../http/conditional';

/** The longest lifetime one may ask for: ten years. */
const MAX_DAYS = 3650;
/** Tokens per user on one instance: one per integration is plenty; more would let one user fill the database. */
export const MAX_TOKENS_PER_USER = 100;

const time = (description: string) => Type.Union([Type.Number(), Type.Null()], { description });

const TokenInfoSchema = Type.Object({
    id: Type.String({ description: 'Names the token in GET and DELETE; not a secret' }),
    name: Type.String(),
    user: Type.String({ description: 'The user it acts for, e.g. system.user.admin' }),
    scope: Type.Union([ScopeSchema, Type.Null()], { description: 'null: the full rights of the user' }),
    created: Type.Number({ description: 'ms since 1970' }),
    expires: time('ms since 1970; null: never'),
    lastUsed: time('ms since 1970, to the minute; null: never used'),
});

/** A token must not mint or revoke tokens: a leaked one could otherwise outlive its own revocation. */
function assertPasswordLogin(ctx: RequestContext): void {
    if (ctx.acl.token) {
        throw new HttpError('FORBIDDEN', 'permissionError', {
            context: { reason: "API tokens are managed with the user's login, not with a token" },
        });
    }
}

export const createTokenRoute = defineRoute({
    method: 'POST',
    path: '/v1/tokens',
    summary: 'Create an API token for the calling user, optionally narrowed to some ids and commands',
    description:
        'Send it as `Authorization: Bearer <token>`. It acts as its user, narrowed by `scope`: ids outside `read` are refused ' +
        '(and left out of listings, long polls, hooks, event streams and history), writes outside `write` and commands not in ' +
        '`commands` are refused; a `metrics` entry in `read` opens /metrics. Files, logs and messages to instances are reached ' +
        'only through commands named in the scope. The token is shown only in this answer; only its SHA-256 hash is stored.',
    tag: 'tokens',
    permission: null,
    body: 'json',
    requestBody: Type.Object({
        name: Type.String({ minLength: 1, maxLength: 64, description: 'What it is for, e.g. evcc' }),
        expiresInDays: Type.Optional(
            Type.Integer({ minimum: 0, maximum: MAX_DAYS, description: 'Omitted or 0: it never expires' }),
        ),
        scope: Type.Optional(ScopeSchema),
    }),
    responses: {
        201: json(
            Type.Composite([
                TokenInfoSchema,
                Type.Object({ token: Type.String({ description: 'The secret: shown only here' }) }),
            ]),
            'The new token',
        ),
    },
    errors: [403, 409],
    async handler({ body }, ctx) {
        assertPasswordLogin(ctx);
        const wanted: NewToken = body;
        // the permission table names every served command (routes have a method and a space)
        const served = (name: string) => !name.includes(' ') && Object.hasOwn(ctx.meta.permissions, name);
        const unknown = wanted.scope ? unknownCommands(wanted.scope, served) : [];
        if (unknown.length) {
            throw paramsError(
                unknown.map(name => ({ param: 'scope.commands', problem: `unknown command ${name}` })),
                ['name', 'expiresInDays', 'scope'],
            );
        }
        for (const access of ['read', 'write'] as const) {
            wanted.scope?.[access]?.forEach((pattern, i) => safePattern(`scope.${access}[${i}]`, pattern));
        }
        if ((await ctx.auth.tokens.list(ctx.user)).length >= MAX_TOKENS_PER_USER) {
            throw new HttpError('CONFLICT', `At most ${MAX_TOKENS_PER_USER} API tokens per user; revoke one first`);
        }
        return Reply.json(await ctx.auth.tokens.create(ctx.user, wanted), 201, { ...NO_STORE });
    },
});

export const listTokensRoute = defineRoute({
    method: 'GET',
    path: '/v1/tokens',
    summary: "The caller's API tokens (administrators: everyone's), without secrets",
    tag: 'tokens',
    permission: null,
    responses: { 200: json(Type.Array(TokenInfoSchema), 'Oldest first') },
    errors: [403],
    async handler(_req, ctx) {
        assertPasswordLogin(ctx);
        return ctx.auth.tokens.list(isAdministrator(ctx.acl) ? undefined : ctx.user);
    },
});

export const revokeTokenRoute = defineRoute({
    method: 'DELETE',
    path: '/v1/tokens/:tokenId',
    summary: "Revoke an API token of the caller (administrators: anyone's); refused at once everywhere",
    tag: 'tokens',
    permission: null,
    params: Type.Object({ tokenId: Type.String({ maxLength: 64, description: 'The id from the list' }) }),
    responses: { 204: { description: 'Revoked' } },
    errors: [403, 404],
    async handler({ params }, ctx) {
        assertPasswordLogin(ctx);
        const revoked = await ctx.auth.tokens.revoke(params.tokenId, isAdministrator(ctx.acl) ? undefined : ctx.user);
        if (!revoked) {
            throw new HttpError('NOT_FOUND', 'API token not found', { context: { tokenId: params.tokenId } });
        }
        // its events stop at once anyway (each delivery checks the token); its hooks need not linger
        await ctx.events.hooks.dropOwner(
            ownerOf({ user: revoked.user, token: { id: params.tokenId, ref: revoked.ref } }),
        );
        return Reply.noContent();
    },
});

export const tokenRoutes = [createTokenRoute, listTokensRoute, revokeTokenRoute];
