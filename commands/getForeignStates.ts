import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command';
import { readStatesByPattern, statesPatternParam } from '../src/lib/state-commands';

export default defineCommand({
    name: 'getForeignStates',
    summary: 'Same as getStates (kept for old clients)',
    params: Type.Object({ pattern: statesPatternParam }),
    permission: { type: 'state', operation: 'list' },
    effect: 'read',
    envelope: 'result',
    handler: ({ pattern }, ctx) => readStatesByPattern(ctx, pattern),
});
