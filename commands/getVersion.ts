import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command';

export default defineCommand({
    name: 'getVersion',
    summary: 'Version and name of this adapter',
    params: Type.Object({}),
    permission: null,
    effect: 'read',
    envelope: 'results',
    async handler(_params, { app }) {
        return [app.version, app.adapterName];
    },
});
