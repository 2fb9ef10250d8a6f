import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';
import { isAdministrator } from '../src/access/rules';
import { ObjectSchema } from '../src/http/schemas';

export default defineCommand({
    name: 'getCompactSystemConfig',
    summary: 'system.config with native reduced to {secret, vendor}; the secret only for administrators',
    params: Type.Object({}),
    permission: { type: 'object', operation: 'read' },
    effect: 'read',
    envelope: 'result',
    result: Type.Union([ObjectSchema, Type.Null()]),
    async handler(_params, { data, acl }) {
        const config = await data.getObject('system.config');
        if (!config) {
            return null;
        }
        const native = (config.native ?? {}) as { secret?: string; vendor?: unknown };
        const compact: Record<string, unknown> = {};
        // 4.0.2 handed the system secret to anyone who may read objects
        if (native.secret && isAdministrator(acl)) {
            compact.secret = native.secret;
        }
        if (native.vendor) {
            compact.vendor = native.vendor;
        }
        return { ...config, native: compact };
    },
});
