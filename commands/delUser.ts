import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';
import { ACCOUNT_DELETION, deleteAccount, removeFromGroups, userId } from '../src/auth/users';
import { NoResults } from '../src/http/schemas';

export default defineCommand({
    name: 'delUser',
    summary: 'Delete a user and its group memberships',
    params: Type.Object({ user: Type.String({ minLength: 1, description: 'User name or system.user.<name>' }) }),
    ...ACCOUNT_DELETION,
    result: NoResults,
    async handler({ user }, ctx) {
        const id = userId(user);
        await deleteAccount(ctx, id, 'User');
        // no stale membership may grant rights to a later user of the same name
        await removeFromGroups(ctx, id);
        return [];
    },
});
