import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { HttpError } from '../http/http-error';
import type { CoherentCache } from '../storage/cache/coherent-cache';
import { destroySession, getSession, setSession, type LoginSession } from './sessions';
import type { StoragePort } from '../storage/port';

export const REFRESH_TTL_SECONDS = 30 * 24 * 3600;
/**
 * How long a refresh waits after marking its token used before it looks again (Fischer's mutual
 * exclusion): a rival that read the token before our mark must have written its own mark by then.
 */
const CLAIM_SETTLE_MS = 150;
/** A claimed refresh token is dead either way; its record only has to outlive the claim. */
const CLAIM_TTL_SECONDS = 60;

/** Where tokens live (the states DB) and how their user is read now (the coherent object cache). */
export interface TokenServices {
    storage: StoragePort;
    objectCache: CoherentCache<ioBroker.Object>;
}

export interface TokenAnswer {
    access_token: string;
    expires_in: number;
    refresh_token: string;
    refresh_token_expires_in: number;
    token_type: 'Bearer';
}

/** 160 random bits as 40 hex characters: the token format of the web and admin adapters. */
function newToken(): string {
    return randomBytes(20).toString('hex');
}

export function safeEqual(a: string, b: string): boolean {
    const left = Buffer.from(a);
    const right = Buffer.from(b);
    return left.length === right.length && timingSafeEqual(left, right);
}

function shortName(user: string): string {
    return user.replace(/^system\.user\./, '');
}

/**
 * Binds a session to one life of one user: a new password gets a new salted hash, and a user deleted
 * and created again under the same name gets a new salt too, so either changes this value.
 */
function fingerprint(user: ioBroker.Object): string {
    const hash = (user.common as { password?: string } | undefined)?.password ?? '';
    return createHash('sha256').update(user._id).update('\0').update(hash).digest('base64url').slice(0, 22);
}

async function readUser(services: TokenServices, user: string): Promise<ioBroker.Object | null> {
    return services.objectCache.get(`system.user.${user}`);
}

/**
 * Whether the session's user may still use it: it exists, is enabled, and (for sessions we issued,
 * which carry `fp`) has the password and identity it had at login. Sessions of web or admin carry no
 * `fp`: for them only existence and `enabled` can be checked.
 */
function userAccepts(session: LoginSession, user: ioBroker.Object | null): boolean {
    if (user?.type !== 'user' || (user.common as { enabled?: boolean } | undefined)?.enabled === false) {
        return false;
    }
    return session.fp === undefined || safeEqual(session.fp, fingerprint(user));
}

/**
 * The session of `key` when its user still accepts it. A session its user refuses is destroyed, so a
 * user enabled again does not revive it; a failed read of the user refuses without destroying.
 */
async function liveSession(services: TokenServices, key: string): Promise<LoginSession | null> {
    const session = await getSession(services.storage, key);
    if (!session || typeof session.user !== 'string') {
        return null;
    }
    let user: ioBroker.Object | null;
    try {
        user = await readUser(services, session.user);
    } catch {
        return null;
    }
    if (!userAccepts(session, user)) {
        await endSession(services.storage, session);
        return null;
    }
    return session;
}

async function endSession(storage: StoragePort, session: LoginSession): Promise<void> {
    await destroySession(storage, `a:${session.aToken}`);
    await destroySession(storage, `r:${session.rToken}`);
}

/** Stores both tokens as ioBroker login sessions, so web and admin accept them too. */
export async function issueTokens(services: TokenServices, user: string, ttlSeconds: number): Promise<TokenAnswer> {
    const owner = await readUser(services, shortName(user));
    if (!owner) {
        // deleted between the password check and now
        throw new HttpError('UNAUTHORIZED', 'User is required');
    }
    const now = Date.now();
    const session: LoginSession = {
        aToken: newToken(),
        aExp: now + ttlSeconds * 1000,
        rToken: newToken(),
        rExp: now + REFRESH_TTL_SECONDS * 1000,
        user: shortName(user),
        fp: fingerprint(owner),
    };
    await setSession(services.storage, `a:${session.aToken}`, ttlSeconds, session);
    await setSession(services.storage, `r:${session.rToken}`, REFRESH_TTL_SECONDS, session);
    return {
        access_token: session.aToken,
        expires_in: ttlSeconds,
        refresh_token: session.rToken,
        refresh_token_expires_in: REFRESH_TTL_SECONDS,
        token_type: 'Bearer',
    };
}

/** The valid session of an access token (its user still accepts it), or null. */
export async function accessSession(services: TokenServices, token: string): Promise<LoginSession | null> {
    const session = token ? await liveSession(services, `a:${token}`) : null;
    if (!session || !safeEqual(session.aToken ?? '', token) || (session.aExp && session.aExp < Date.now())) {
        return null;
    }
    return session;
}

/** The user of a valid access token, or null. */
export async function accessTokenUser(services: TokenServices, token: string): Promise<string | null> {
    const session = await accessSession(services, token);
    return session ? `system.user.${session.user}` : null;
}

/** Ends both tokens of the session that `token` (access or refresh) belongs to. */
export async function revokeToken(storage: StoragePort, token: string): Promise<LoginSession | null> {
    const session = (await getSession(storage, `a:${token}`)) ?? (await getSession(storage, `r:${token}`));
    if (!session || !(safeEqual(session.aToken ?? '', token) || safeEqual(session.rToken ?? '', token))) {
        return null;
    }
    await endSession(storage, session);
    return session;
}

/**
 * Marks the refresh token used and answers whether this call won it. The states DB has no
 * compare-and-set, so two refreshes (on one instance or several) race by Fischer's rule: the one
 * whose mark is still there after CLAIM_SETTLE_MS wins, every other sees a mark and loses.
 * Remaining window: a rival paused (GC, a slow DB) longer than that between its read and its mark.
 */
async function claim(storage: StoragePort, key: string, session: LoginSession): Promise<boolean> {
    const mark = randomBytes(12).toString('base64url');
    await setSession(storage, key, CLAIM_TTL_SECONDS, { ...session, used: mark });
    await sleep(CLAIM_SETTLE_MS);
    return (await getSession(storage, key))?.used === mark;
}

/** Refresh rotates and is single-use: the old refresh token and its access token stop working. */
export async function refreshTokens(
    services: TokenServices,
    refreshToken: string,
    ttlSeconds: number,
): Promise<TokenAnswer | null> {
    const key = `r:${refreshToken}`;
    const session = refreshToken ? await liveSession(services, key) : null;
    if (
        !session ||
        session.used !== undefined ||
        !safeEqual(session.rToken ?? '', refreshToken) ||
        !(await claim(services.storage, key, session))
    ) {
        return null;
    }
    await endSession(services.storage, session);
    return issueTokens(services, `system.user.${session.user}`, ttlSeconds);
}

/** The login sessions as a request handler uses them: what one does with a session, not the store it lives in. */
export interface LoginSessions {
    issue(user: string, ttlSeconds: number): Promise<TokenAnswer>;
    refresh(refreshToken: string, ttlSeconds: number): Promise<TokenAnswer | null>;
    /** The valid session of an access token, or null. */
    access(token: string): Promise<LoginSession | null>;
    /** Gives the valid session of `accessToken` another `ttlSeconds` from now. */
    extend(accessToken: string, session: LoginSession, ttlSeconds: number): Promise<void>;
    revoke(token: string): Promise<LoginSession | null>;
}

export function loginSessions(services: TokenServices): LoginSessions {
    return {
        issue: (user, ttlSeconds) => issueTokens(services, user, ttlSeconds),
        refresh: (refreshToken, ttlSeconds) => refreshTokens(services, refreshToken, ttlSeconds),
        access: token => accessSession(services, token),
        extend: (accessToken, session, ttlSeconds) =>
            setSession(services.storage, `a:${accessToken}`, ttlSeconds, {
                ...session,
                aExp: Date.now() + ttlSeconds * 1000,
            }),
        revoke: token => revokeToken(services.storage, token),
    };
}
