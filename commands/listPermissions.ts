import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';
import { dictionary } from '../src/http/schemas';

export default defineCommand({
    name: 'listPermissions',
    summary:
        'The permission each command and each REST route needs, as {type, operation}; empty for none (4.0.2 answered this with status 500)',
    params: Type.Object({}),
    permission: null,
    effect: 'read',
    envelope: 'result',
    result: dictionary(
        Type.Object({ type: Type.String(), operation: Type.String() }),
        'command name or "METHOD /path" → permission; empty type and operation: none needed',
    ),
    handler: (_params, ctx) => ctx.meta.permissions,
});
