import { Type } from '@sinclair/typebox';
import { isAdministrator } from '../src/access/rules';
import { defineCommand } from '../src/command-runtime/command';
import { HttpError } from '../src/http/http-error';

export default defineCommand({
    name: 'updateTokenExpiration',
    summary: "Extend a valid access token by the configured lifetime (ttl): one's own, or any as administrator",
    params: Type.Object({ accessToken: Type.String({ description: 'The access token' }) }),
    // checked in the handler: the token's own user, or an administrator
    permission: null,
    effect: 'write',
    account: true,
    envelope: 'result',
    result: Type.Literal(true),
    errors: [403, 404],
    async handler({ accessToken }, { auth, meta, acl }) {
        // a session its user no longer accepts (disabled, deleted, new password) is no token to extend
        const session = await auth.sessions.access(accessToken);
        if (!session) {
            throw new HttpError('NOT_FOUND', 'No access token found', { context: { result: false } });
        }
        if (`system.user.${session.user}` !== acl.user && !isAdministrator(acl)) {
            throw new HttpError('FORBIDDEN', 'permissionError', { context: { result: false } });
        }
        await auth.sessions.extend(accessToken, session, meta.config.ttl);
        return true;
    },
});
