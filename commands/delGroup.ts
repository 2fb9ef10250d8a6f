import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';
import { HttpError } from '../src/http/http-error';
import { existing, groupId } from '../src/auth/users';
import { NoResults } from '../src/http/schemas';

export default defineCommand({
    name: 'delGroup',
    summary: 'Delete a user group',
    params: Type.Object({ group: Type.String({ minLength: 1, description: 'Group name or system.group.<name>' }) }),
    permission: { type: 'users', operation: 'delete' },
    effect: 'write',
    account: true,
    envelope: 'results',
    result: NoResults,
    errors: [404],
    adminOnly: true,
    async handler({ group }, ctx) {
        const id = groupId(group);
        const obj = await existing(ctx, id, 'Group');
        if (obj.common?.dontDelete) {
            throw new HttpError('INVALID_PARAMS', 'Cannot delete group, while is system group', { context: { id } });
        }
        await ctx.data.delObject(id);
        return [];
    },
});
