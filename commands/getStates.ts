import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command';
import { commandPage, pageParams } from '../src/lib/listing-pages';
import { readStatesByPattern, statesPatternParam } from '../src/lib/state-commands';

export default defineCommand({
    name: 'getStates',
    summary: 'Read all states matching a pattern (or a list of ids), as a dictionary id → state',
    params: Type.Object({ pattern: statesPatternParam, ...pageParams('state') }),
    permission: { type: 'state', operation: 'list' },
    effect: 'read',
    envelope: 'result',
    handler: async ({ pattern, ...page }, ctx) => commandPage(await readStatesByPattern(ctx, pattern), page, 'state'),
});
