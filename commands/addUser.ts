import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';
import { HttpError } from '../src/http/http-error';
import { assertValidName, userId } from '../src/auth/users';
import { NoResults } from '../src/http/schemas';

export default defineCommand({
    name: 'addUser',
    summary: 'Create a user with a password (in no group yet)',
    description: 'With authentication on, send user and pass in a JSON body: in the query they are login credentials.',
    params: Type.Object({
        user: Type.String({ minLength: 1, description: 'User name' }),
        pass: Type.String({ description: 'Password' }),
    }),
    permission: { type: 'users', operation: 'create' },
    effect: 'write',
    account: true,
    envelope: 'results',
    result: NoResults,
    errors: [409],
    adminOnly: true,
    async handler({ user, pass }, { data }) {
        assertValidName(user, 'user');
        const id = userId(user);
        if (await data.getObject(id)) {
            throw new HttpError('CONFLICT', 'User yet exists', { context: { id } });
        }
        await data.setObject(id, {
            type: 'user',
            common: { name: user, enabled: true, password: '' },
            native: {},
        });
        await data.setPassword(id, pass);
        return [];
    },
});
