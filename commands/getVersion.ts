import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';
import { tuple } from '../src/http/schemas';

export default defineCommand({
    name: 'getVersion',
    summary: 'Version and name of this adapter',
    params: Type.Object({}),
    permission: null,
    effect: 'read',
    envelope: 'results',
    result: tuple(
        [Type.String({ description: 'version' }), Type.String({ description: 'adapter name' })],
        2,
        '[version, adapter name]',
    ),
    async handler(_params, { meta }) {
        return [meta.version, meta.adapterName];
    },
});
