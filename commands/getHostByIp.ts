import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';
import { ObjectSchema } from '../src/http/schemas';

type HostNative = { hardware?: { networkInterfaces?: Record<string, Array<{ address?: string }>> } };

export default defineCommand({
    name: 'getHostByIp',
    summary: 'The host object whose hostname or one of whose network addresses is this IP',
    params: Type.Object({ ip: Type.String({ description: 'IP address or host name' }) }),
    permission: { type: 'object', operation: 'list' },
    effect: 'read',
    envelope: 'raw',
    result: Type.Object({ ip: Type.String(), result: Type.Union([ObjectSchema, Type.Null()]) }),
    adminOnly: true,
    async handler({ ip }, ctx) {
        const view = await ctx.data.objectView('system', 'host', {});
        const host = view.rows.find(({ value }) => {
            const interfaces = (value?.native as HostNative | undefined)?.hardware?.networkInterfaces ?? {};
            return (
                value?.common?.hostname === ip ||
                Object.values(interfaces).some(list => list?.some(nic => nic.address === ip))
            );
        });
        // 4.0.2's own envelope for this command
        return { ip, result: host?.value ?? null };
    },
});
