import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command';
import { COMMANDS_PERMISSIONS } from '../src/lib/permissions-table';

export default defineCommand({
    name: 'listPermissions',
    summary: 'The permission each socket command needs (4.0.2 answered this with status 500)',
    params: Type.Object({}),
    permission: null,
    effect: 'read',
    envelope: 'result',
    async handler() {
        return COMMANDS_PERMISSIONS;
    },
});
