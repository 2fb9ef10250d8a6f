/*
 * ioBroker login sessions in the states DB, as the web and admin adapters keep them:
 * `a:<access token>` and `r:<refresh token>` with {aToken, aExp, rToken, rExp, user}.
 */
import type { StoragePort } from '../storage/port';

export interface LoginSession {
    aToken: string;
    aExp: number;
    rToken: string;
    rExp: number;
    /** User name without `system.user.` */
    user: string;
    /** Ours only: the user's identity and password hash at login, fingerprinted (src/auth/tokens.ts). */
    fp?: string;
    /** Ours only: a refresh under way marked the refresh token used. */
    used?: string;
}

export function getSession(storage: StoragePort, key: string): Promise<LoginSession | null> {
    return new Promise(resolve =>
        storage.getSession(key, session => resolve((session as LoginSession | undefined) ?? null)),
    );
}

export function setSession(
    storage: StoragePort,
    key: string,
    ttlSeconds: number,
    session: LoginSession,
): Promise<void> {
    return new Promise((resolve, reject) =>
        storage.setSession(key, ttlSeconds, session, err => (err ? reject(err) : resolve())),
    );
}

export function destroySession(storage: StoragePort, key: string): Promise<void> {
    return new Promise(resolve => storage.destroySession(key, () => resolve()));
}
