import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';

export default defineCommand({
    name: 'getCurrentInstance',
    summary: 'Namespace of the instance serving this request, e.g. rest-api.0',
    params: Type.Object({}),
    permission: null,
    effect: 'read',
    envelope: 'result',
    result: Type.String({ description: 'e.g. rest-api.0' }),
    adminOnly: true,
    async handler(_params, { meta }) {
        return meta.namespace;
    },
});
