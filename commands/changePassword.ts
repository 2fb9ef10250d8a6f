import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';
import { isAllowed } from '../src/access/rules';
import { HttpError } from '../src/http/http-error';
import { existing, userId } from '../src/auth/users';
import { NoResults } from '../src/http/schemas';

export default defineCommand({
    name: 'changePassword',
    summary: "Set a user's password: one's own always, another user's with the users.write right",
    description: 'With authentication on, send user and pass in a JSON body: in the query they are login credentials.',
    params: Type.Object({
        user: Type.String({ minLength: 1, description: 'User name or system.user.<name>' }),
        pass: Type.String({ minLength: 1, description: 'New password' }),
    }),
    // checked in the handler: changing one's own password needs no right
    permission: null,
    effect: 'write',
    account: true,
    envelope: 'results',
    result: NoResults,
    errors: [403, 404],
    adminOnly: true,
    async handler({ user, pass }, ctx) {
        const id = userId(user);
        if (id !== ctx.acl.user && !isAllowed(ctx.acl, { type: 'users', operation: 'write' })) {
            throw new HttpError('FORBIDDEN', 'permissionError');
        }
        await existing(ctx, id, 'User');
        await ctx.data.setPassword(id, pass);
        return [];
    },
});
