import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command';

export default defineCommand({
    name: 'listPermissions',
    summary: 'The permission each command and each REST route needs, as {type, operation}; empty for none (4.0.2 answered this with status 500)',
    params: Type.Object({}),
    permission: null,
    effect: 'read',
    envelope: 'result',
    handler: (_params, ctx) => ctx.app.permissions,
});
