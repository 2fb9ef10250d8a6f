import type { Acl } from './rules';

/*
 * Polling sessions, URL hooks and event streams belong to an owner: the user itself, or one API
 * token of that user, whose scope then filters every delivery. Limits count per user either way.
 */

const TOKEN = 'token:';

export function ownerOf(acl: Pick<Acl, 'user' | 'token'>): string {
    // a token's object id (rest-api.0.tokens.<letters and digits>) cannot contain `@`
    return acl.token ? `${TOKEN}${acl.token.ref}@${acl.user}` : acl.user;
}

/** The user an owner counts against. */
export function userOf(owner: string): string {
    return owner.startsWith(TOKEN) ? owner.slice(owner.indexOf('@') + 1) : owner;
}

/** The object id of a token owner's API token; undefined for a plain user. */
export function tokenOf(owner: string): string | undefined {
    return owner.startsWith(TOKEN) ? owner.slice(TOKEN.length, owner.indexOf('@')) : undefined;
}
