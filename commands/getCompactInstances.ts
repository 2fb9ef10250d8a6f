import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';
import { systemObjects } from '../src/objects/adapter-objects';
import { dictionary, FreeObject } from '../src/http/schemas';

export default defineCommand({
    name: 'getCompactInstances',
    summary: 'Every instance as {adminTab, name, icon, enabled, version}',
    params: Type.Object({}),
    permission: { type: 'object', operation: 'read' },
    effect: 'read',
    envelope: 'result',
    result: dictionary(FreeObject, 'instance id → {adminTab, name, icon, enabled, version}'),
    adminOnly: true,
    async handler(_params, ctx) {
        const compact: Record<string, unknown> = {};
        for (const obj of await systemObjects(ctx.data, 'instance', undefined)) {
            const common = obj.common as ioBroker.InstanceCommon;
            compact[obj._id] = {
                adminTab: common.adminTab,
                name: common.name,
                icon: common.icon,
                enabled: common.enabled,
                version: common.version,
            };
        }
        return compact;
    },
});
