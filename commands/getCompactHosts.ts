import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';
import { FreeObject } from '../src/http/schemas';

export default defineCommand({
    name: 'getCompactHosts',
    summary:
        'Every host as {_id, common: {name, icon, color, installedVersion}, native: {hardware: {networkInterfaces}}}',
    params: Type.Object({}),
    permission: { type: 'object', operation: 'read' },
    effect: 'read',
    envelope: 'result',
    result: Type.Array(FreeObject),
    adminOnly: true,
    async handler(_params, ctx) {
        const view = await ctx.data.objectView('system', 'host', {});
        return view.rows.map(({ value }) => {
            const common = (value?.common ?? {}) as ioBroker.HostCommon & { color?: string };
            const native = (value?.native ?? {}) as { hardware?: { networkInterfaces?: unknown } };
            return {
                _id: value?._id,
                common: {
                    name: common.name,
                    icon: common.icon,
                    color: common.color,
                    installedVersion: common.installedVersion,
                },
                native: { hardware: { networkInterfaces: native.hardware?.networkInterfaces } },
            };
        });
    },
});
