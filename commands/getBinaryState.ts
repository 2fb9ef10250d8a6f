import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';
import { binaryStatesRemoved } from '../src/states/binary-states';

export default defineCommand({
    name: 'getBinaryState',
    summary: 'Removed: binary states no longer exist in ioBroker; answers 410 (use readFile)',
    params: Type.Object({ id: Type.String({ description: 'State id' }) }),
    permission: { type: 'state', operation: 'read' },
    effect: 'read',
    envelope: 'results',
    result: Type.Null({ description: 'Never answered: always 410' }),
    errors: [410],
    handler: binaryStatesRemoved,
});
