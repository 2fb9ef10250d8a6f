import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';
import { ACCOUNT_DELETION, deleteAccount, groupId } from '../src/auth/users';
import { NoResults } from '../src/http/schemas';

export default defineCommand({
    name: 'delGroup',
    summary: 'Delete a user group',
    params: Type.Object({ group: Type.String({ minLength: 1, description: 'Group name or system.group.<name>' }) }),
    ...ACCOUNT_DELETION,
    result: NoResults,
    async handler({ group }, ctx) {
        await deleteAccount(ctx, groupId(group), 'Group');
        return [];
    },
});
