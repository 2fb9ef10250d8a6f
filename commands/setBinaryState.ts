import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';
import { binaryStatesRemoved } from '../src/states/binary-states';
import { NoResults } from '../src/http/schemas';

export default defineCommand({
    name: 'setBinaryState',
    summary: 'Removed: binary states no longer exist in ioBroker; answers 410 (use writeFile64)',
    params: Type.Object({
        id: Type.String({ description: 'State id' }),
        base64: Type.String({ description: 'Data, base64' }),
    }),
    permission: { type: 'state', operation: 'write' },
    effect: 'write',
    envelope: 'results',
    result: NoResults,
    errors: [410],
    handler: binaryStatesRemoved,
});
