import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';
import { systemObjects } from '../src/objects/adapter-objects';
import { dictionary, FreeObject } from '../src/http/schemas';

export default defineCommand({
    name: 'getCompactAdapters',
    summary: 'Every installed adapter as {icon, v (version), iv (ignored version)}',
    params: Type.Object({}),
    permission: { type: 'object', operation: 'read' },
    effect: 'read',
    envelope: 'result',
    result: dictionary(FreeObject, 'adapter name → {icon, v, iv}'),
    adminOnly: true,
    async handler(_params, ctx) {
        const compact: Record<string, { icon?: string; v: string; iv?: string }> = {};
        for (const obj of await systemObjects(ctx.data, 'adapter', undefined)) {
            const common = obj.common as ioBroker.AdapterCommon & { ignoreVersion?: string };
            compact[common.name] = {
                icon: common.icon,
                v: common.version,
                ...(common.ignoreVersion ? { iv: common.ignoreVersion } : {}),
            };
        }
        return compact;
    },
});
