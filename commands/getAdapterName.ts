import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';

export default defineCommand({
    name: 'getAdapterName',
    summary: 'Name of this adapter (rest-api)',
    params: Type.Object({}),
    permission: null,
    effect: 'read',
    envelope: 'result',
    result: Type.String(),
    async handler(_params, { meta }) {
        return meta.adapterName;
    },
});
