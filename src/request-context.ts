import type { Acl } from './access/rules';
import { guardedStorage } from './access/guarded-storage';
import { ownerOf } from './auth/owner';
import { writingScope } from './auth/scope';
import type { HandlerServices } from './handler-services';
import type { StoragePort } from './storage/port';

/** What a command or route handler may use; handlers never see `req` or `res`. */
export interface RequestContext {
    /** Caches, event registries and config; not the app itself (its router, commands, docs). */
    app: HandlerServices;
    /** js-controller, through the one port (src/storage/port.ts), every write checked for this caller (src/access/). */
    storage: StoragePort;
    user: string;
    /** Who owns the polling sessions, hooks and event streams this request opens (ownerOf). */
    owner: string;
    acl: Acl;
    /** onlyAllowWhenUserIsOwner: only the owner bits of a state's ACL count. */
    ownerOnly: boolean;
    /**
     * Options for a js-controller call, so its ACL applies to the caller: a new object on every read,
     * because js-controller writes the caller's groups, ACL and object list into the options it is
     * given, and a later or concurrent call reusing them would be checked against stale data.
     */
    readonly callOptions: { user: string; limitToOwnerRights?: boolean };
}

/** For a write: a token may read the objects of what it may write (ids resolve and values convert by them). */
export function writingContext(ctx: RequestContext): RequestContext {
    const token = ctx.acl.token;
    return token?.scope ? createContext(ctx.app, ctx.storage, { ...ctx.acl, token: { ...token, scope: writingScope(token.scope) } }) : ctx;
}

export function createContext(app: HandlerServices, storage: StoragePort, acl: Acl): RequestContext {
    const ownerOnly = app.config.onlyAllowWhenUserIsOwner;
    return {
        app,
        storage: guardedStorage(storage, acl, ownerOnly, app),
        user: acl.user,
        owner: ownerOf(acl),
        acl,
        ownerOnly,
        get callOptions() {
            return ownerOnly ? { user: acl.user, limitToOwnerRights: true } : { user: acl.user };
        },
    };
}
