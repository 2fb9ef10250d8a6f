import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command';
import { readStatesByPattern, statesPatternParam } from '../src/lib/state-commands';

export default defineCommand({
    name: 'getStates',
    summary: 'Read all states matching a pattern (or a list of ids), as a dictionary id → state',
    params: Type.Object({ pattern: statesPatternParam }),
    permission: { type: 'state', operation: 'list' },
    effect: 'read',
    envelope: 'result',
    handler: ({ pattern }, ctx) => readStatesByPattern(ctx, pattern),
});
