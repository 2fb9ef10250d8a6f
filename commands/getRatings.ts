import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';
import { FreeObject } from '../src/http/schemas';

export default defineCommand({
    name: 'getRatings',
    summary: 'Adapter ratings of the ioBroker repository, as far as this host has them (null when unknown)',
    description: 'The ratings service is not contacted from the REST API; `update` is accepted for compatibility.',
    params: Type.Object({ update: Type.Optional(Type.Boolean({ description: 'Ignored' })) }),
    permission: { type: 'object', operation: 'read' },
    effect: 'read',
    envelope: 'result',
    result: Type.Union([FreeObject, Type.Null()]),
    adminOnly: true,
    async handler(_params, { data }) {
        const repos = await data.getObject('system.repositories');
        return (repos?.native as { ratings?: unknown } | undefined)?.ratings ?? null;
    },
});
