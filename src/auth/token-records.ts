import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { Value } from '@sinclair/typebox/value';
import { ScopeSchema, type TokenScope } from '../access/scope';

/*
 * How an API token is kept: a `config` object `rest-api.<n>.tokens.<id>` whose `native` holds the
 * SHA-256 hash of the secret, the user, the scope and the times, sealed with an HMAC so that nobody
 * without the key can write a record that passes.
 */

export interface StoredToken {
    apiToken: true;
    hash: string;
    user: string;
    name: string;
    scope?: TokenScope;
    created: number;
    expires: number | null;
    lastUsed: number | null;
    /** HMAC over everything above but `lastUsed`, with a key from the system secret. */
    seal: string;
}

export const TOKEN_OBJECT = /^[^.]+\.\d+\.tokens\.[A-Za-z0-9]{16}$/;

/** What the owner and administrators see of a token: never its secret or hash. */
export interface TokenInfo {
    id: string;
    name: string;
    user: string;
    scope: TokenScope | null;
    created: number;
    expires: number | null;
    lastUsed: number | null;
}

export function hashOf(secret: string): Buffer {
    return createHash('sha256').update(secret).digest();
}

/** The record of a token object, when it has the shape of one (anything else is no token). */
export function stored(obj: ioBroker.Object | null | undefined): StoredToken | undefined {
    const native = obj?.native as Partial<StoredToken> | undefined;
    const valid =
        native?.apiToken === true &&
        typeof native.hash === 'string' &&
        /^[0-9a-f]{64}$/.test(native.hash) &&
        typeof native.user === 'string' &&
        native.user.startsWith('system.user.') &&
        typeof native.name === 'string' &&
        typeof native.created === 'number' &&
        (native.expires === null || typeof native.expires === 'number') &&
        typeof native.seal === 'string' &&
        (native.scope === undefined || Value.Check(ScopeSchema, native.scope));
    return valid ? (native as StoredToken) : undefined;
}

export function info(id: string, token: Omit<StoredToken, 'seal'>): TokenInfo {
    return {
        id,
        name: token.name,
        user: token.user,
        scope: token.scope ?? null,
        created: token.created,
        expires: token.expires,
        lastUsed: token.lastUsed,
    };
}

/** The seal of a record: an HMAC over everything that decides what the token may do. */
export function sealOf(
    key: Buffer,
    ref: string,
    { hash, user, name, scope, created, expires }: Omit<StoredToken, 'seal'>,
): string {
    const text = JSON.stringify([ref, hash, user, name, scope ?? null, created, expires]);
    return createHmac('sha256', key).update(text).digest('hex');
}

export function sealMatches(key: Buffer, ref: string, token: StoredToken): boolean {
    const expected = Buffer.from(sealOf(key, ref, token), 'hex');
    const given = Buffer.from(token.seal, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
}
