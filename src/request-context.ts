import type { Acl } from './acl';
import type { AppServices } from './app-services';

/** What a command or route handler may use; handlers never see `req` or `res`. */
export interface RequestContext {
    app: AppServices;
    adapter: ioBroker.Adapter;
    user: string;
    acl: Acl;
    /** Options for every js-controller call, so its ACL applies to the caller. */
    callOptions: { user: string; limitToOwnerRights?: boolean };
}

export function createContext(app: AppServices, acl: Acl): RequestContext {
    const callOptions: RequestContext['callOptions'] = { user: acl.user };
    if (app.config.onlyAllowWhenUserIsOwner) {
        callOptions.limitToOwnerRights = true;
    }
    return { app, adapter: app.adapter, user: acl.user, acl, callOptions };
}
