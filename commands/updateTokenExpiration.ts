import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command';
import { HttpError } from '../src/http-error';
import { getSession, setSession } from '../src/lib/sessions';

export default defineCommand({
    name: 'updateTokenExpiration',
    summary: 'Extend a valid access token by the configured lifetime (ttl)',
    params: Type.Object({ accessToken: Type.String({ description: 'The access token' }) }),
    // the token itself is the credential
    permission: null,
    effect: 'write',
    envelope: 'result',
    result: Type.Literal(true),
    errors: [404],
    async handler({ accessToken }, { storage, app }) {
        const session = accessToken ? await getSession(storage, `a:${accessToken}`) : null;
        if (!session) {
            throw new HttpError('NOT_FOUND', 'No access token found', { result: false });
        }
        const ttl = app.config.ttl;
        await setSession(storage, `a:${accessToken}`, ttl, { ...session, aExp: Date.now() + ttl * 1000 });
        return true;
    },
});
