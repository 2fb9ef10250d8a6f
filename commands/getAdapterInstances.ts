import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';
import { systemObjects } from '../src/objects/adapter-objects';
import { ObjectSchema } from '../src/http/schemas';

export default defineCommand({
    name: 'getAdapterInstances',
    summary: 'Instance objects (all, or of one adapter), without news',
    params: Type.Object({ adapterName: Type.Optional(Type.String({ description: 'e.g. admin; empty = all' })) }),
    permission: { type: 'object', operation: 'read' },
    effect: 'read',
    envelope: 'result',
    result: Type.Array(ObjectSchema),
    handler: ({ adapterName }, ctx) => systemObjects(ctx.data, 'instance', adapterName || undefined),
});
