import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';
import { commandPage, pageParams } from '../src/objects/listing-pages';
import { stateSource } from '../src/objects/listing-sources';
import { readStatesByPattern, statesPatternParam } from '../src/states/state-commands';
import { dictionary, ListedState } from '../src/http/schemas';

export default defineCommand({
    name: 'getStates',
    aliases: ['getForeignStates'],
    summary: 'Read all states matching a pattern (or a list of ids), as a dictionary id → state',
    params: Type.Object({ pattern: statesPatternParam, ...pageParams('state') }),
    permission: { type: 'state', operation: 'list' },
    effect: 'read',
    envelope: 'result',
    result: dictionary(Type.Union([ListedState, Type.Null()]), 'id → state (only the asked fields with fields)'),
    handler: ({ pattern, ...page }, ctx) =>
        commandPage(ctx, `states\n${JSON.stringify(pattern ?? '*')}`, page, 'state', {
            all: () => readStatesByPattern(ctx, pattern),
            some: stateSource(ctx.data, '*').some,
        }),
});
