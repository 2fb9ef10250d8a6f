import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';
import { HttpError } from '../src/http/http-error';
import { existing, removeFromGroups, userId } from '../src/auth/users';
import { NoResults } from '../src/http/schemas';

export default defineCommand({
    name: 'delUser',
    summary: 'Delete a user and its group memberships',
    params: Type.Object({ user: Type.String({ minLength: 1, description: 'User name or system.user.<name>' }) }),
    permission: { type: 'users', operation: 'delete' },
    effect: 'write',
    account: true,
    envelope: 'results',
    result: NoResults,
    errors: [404],
    adminOnly: true,
    async handler({ user }, ctx) {
        const id = userId(user);
        const obj = await existing(ctx, id, 'User');
        if (obj.common?.dontDelete) {
            throw new HttpError('INVALID_PARAMS', 'Cannot delete user, while is system user', { context: { id } });
        }
        await ctx.data.delObject(id);
        await removeFromGroups(ctx, id);
        return [];
    },
});
