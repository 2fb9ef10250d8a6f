import type { IncomingMessage } from 'node:http';
import type { Acl } from './acl';
import type { AppServices } from './app-services';
import type { Query } from './query';

/**
 * Decides who a request runs as. With `auth` off every request is the configured `defaultUser`;
 * the credential schemes plug in here, so every route and command sees the same user model.
 */
export async function authenticate(app: AppServices, _req: IncomingMessage, _query: Query): Promise<Acl> {
    return app.acls.get(app.config.defaultUser);
}
