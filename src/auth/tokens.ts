import { randomBytes, timingSafeEqual } from 'node:crypto';
import { destroySession, getSession, setSession, type LoginSession } from '../lib/sessions';
import type { StoragePort } from '../storage/port';

export const REFRESH_TTL_SECONDS = 30 * 24 * 3600;

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

/** Stores both tokens as ioBroker login sessions, so web and admin accept them too. */
export async function issueTokens(storage: StoragePort, user: string, ttlSeconds: number): Promise<TokenAnswer> {
    const now = Date.now();
    const session: LoginSession = {
        aToken: newToken(),
        aExp: now + ttlSeconds * 1000,
        rToken: newToken(),
        rExp: now + REFRESH_TTL_SECONDS * 1000,
        user: shortName(user),
    };
    await setSession(storage, `a:${session.aToken}`, ttlSeconds, session);
    await setSession(storage, `r:${session.rToken}`, REFRESH_TTL_SECONDS, session);
    return {
        access_token: session.aToken,
        expires_in: ttlSeconds,
        refresh_token: session.rToken,
        refresh_token_expires_in: REFRESH_TTL_SECONDS,
        token_type: 'Bearer',
    };
}

/** The user of a valid access token, or null. */
export async function accessTokenUser(storage: StoragePort, token: string): Promise<string | null> {
    const session = token ? await getSession(storage, `a:${token}`) : null;
    if (!session || !safeEqual(session.aToken ?? '', token) || (session.aExp && session.aExp < Date.now())) {
        return null;
    }
    return `system.user.${session.user}`;
}

/** Ends both tokens of the session that `token` (access or refresh) belongs to. */
export async function revokeToken(storage: StoragePort, token: string): Promise<LoginSession | null> {
    const session = (await getSession(storage, `a:${token}`)) ?? (await getSession(storage, `r:${token}`));
    if (!session || !(safeEqual(session.aToken ?? '', token) || safeEqual(session.rToken ?? '', token))) {
        return null;
    }
    await destroySession(storage, `a:${session.aToken}`);
    await destroySession(storage, `r:${session.rToken}`);
    return session;
}

/** Refresh rotates: the old refresh token and its access token stop working. */
export async function refreshTokens(storage: StoragePort, refreshToken: string, ttlSeconds: number): Promise<TokenAnswer | null> {
    const session = refreshToken ? await getSession(storage, `r:${refreshToken}`) : null;
    if (!session || !safeEqual(session.rToken ?? '', refreshToken)) {
        return null;
    }
    await revokeToken(storage, refreshToken);
    return issueTokens(storage, `system.user.${session.user}`, ttlSeconds);
}
