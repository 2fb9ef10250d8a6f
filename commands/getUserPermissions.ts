import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';

export default defineCommand({
    name: 'getUserPermissions',
    summary: 'The calling user, its groups and what they allow',
    params: Type.Object({}),
    permission: { type: 'object', operation: 'read' },
    effect: 'read',
    envelope: 'result',
    result: Type.Object(
        { user: Type.String(), groups: Type.Array(Type.String()) },
        {
            additionalProperties: true,
            description: 'The user, its groups, and per area (object, state, file, users, other) what they allow',
        },
    ),
    async handler(_params, { acl }) {
        return acl;
    },
});
