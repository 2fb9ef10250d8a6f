import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Acl, AclCache } from '../access/rules';
import type { Config } from '../instance/config';
import type { ApiTokens } from './api-tokens';
import type { CredentialChecker } from './credentials';
import type { TokenServices } from './tokens';
import { HttpError } from '../http/http-error';
import type { Query } from '../http/query';
import { isApiToken } from './api-tokens';
import { accessTokenUser } from './tokens';

export interface Credentials {
    user?: string;
    password?: string;
    token?: string;
}

/** The query parameters that carry credentials: never written into a URL the adapter hands out. */
export const QUERY_CREDENTIALS = ['user', 'pass'] as const;

/** Query `user` + `pass` first, then `Authorization: Basic` or `Bearer`, as 4.0.2 reads them. */
export function credentialsOf(headers: IncomingHttpHeaders, query: Query): Credentials {
    if (query.user && query.pass) {
        return { user: query.user, password: query.pass };
    }
    const header = headers.authorization ?? '';
    const [scheme, value = ''] = header.split(' ', 2);
    if (/^basic$/i.test(scheme)) {
        const text = Buffer.from(value, 'base64').toString('utf8');
        const colon = text.indexOf(':');
        return colon === -1 ? {} : { user: text.slice(0, colon), password: text.slice(colon + 1) };
    }
    if (/^bearer$/i.test(scheme)) {
        return { token: value.trim() };
    }
    return {};
}

/** The socket's peer; behind a trusted reverse proxy the app passes the forwarded client instead (src/http/forwarded.ts). */
export function clientAddress(req: IncomingMessage): string {
    return req.socket.remoteAddress ?? 'unknown';
}

/** What deciding who a request runs as needs of the app. */
export interface Authentication {
    /** Inside the web adapter with its auth on: the user web authenticated. */
    identify?: (req: IncomingMessage) => string | undefined;
    auth: { acls: AclCache; tokens: ApiTokens; credentials: CredentialChecker };
    meta: { config: Pick<Config, 'auth' | 'defaultUser' | 'apiTokens'> };
    sessionStore: TokenServices;
}

/**
 * Decides who a request runs as: the user web authenticated (web-extension mode with web's auth on),
 * else with `auth` off the configured `defaultUser`, with `auth` on the owner of valid credentials
 * (401 otherwise, 429 while password guessing is damped).
 * No `WWW-Authenticate` header: browsers would pop up a login dialog on every API call.
 */
export async function authenticate(
    app: Authentication,
    req: IncomingMessage,
    query: Query,
    address = clientAddress(req),
): Promise<Acl> {
    const webUser = app.identify?.(req);
    if (webUser) {
        return app.auth.acls.get(webUser);
    }
    if (!app.meta.config.auth) {
        if (app.identify) {
            // web's auth is on and named nobody (a path web leaves open): `defaultUser` is for installations without any login
            throw new HttpError('UNAUTHORIZED', 'User is required');
        }
        return app.auth.acls.get(app.meta.config.defaultUser);
    }
    const { user, password, token } = credentialsOf(req.headers, query);
    if (token !== undefined && isApiToken(token) && app.meta.config.apiTokens) {
        // the user's rights narrowed by the token's scope
        return app.auth.tokens.verify(token, address);
    }
    return app.auth.acls.get(await authenticatedUser(app, address, { user, password, token }));
}

async function authenticatedUser(
    app: Authentication,
    address: string,
    { user, password, token }: Credentials,
): Promise<string> {
    if (token !== undefined) {
        const owner = await accessTokenUser(app.sessionStore, token);
        if (!owner) {
            // the 4.0.2 text, whose "undefined" clients may match on
            throw new HttpError('UNAUTHORIZED', 'Invalid access token: undefined');
        }
        return owner;
    }
    if (!user || password === undefined) {
        throw new HttpError('UNAUTHORIZED', 'User is required');
    }
    return app.auth.credentials.check(user, password, address);
}
