import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command';

export default defineCommand({
    name: 'getUserPermissions',
    summary: 'The calling user, its groups and what they allow',
    params: Type.Object({}),
    permission: { type: 'object', operation: 'read' },
    effect: 'read',
    envelope: 'result',
    async handler(_params, { acl }) {
        return acl;
    },
});
