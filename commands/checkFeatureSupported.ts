import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';

const ALWAYS = new Set(['INSTANCE_MESSAGES', 'PARTIAL_OBJECT_TREE']);

export default defineCommand({
    name: 'checkFeatureSupported',
    summary: 'Whether js-controller supports a feature, e.g. ALIAS or CONTROLLER_LICENSE_MANAGER',
    params: Type.Object({ feature: Type.String({ minLength: 1, description: 'Feature name' }) }),
    permission: null,
    effect: 'read',
    envelope: 'result',
    result: Type.Boolean(),
    async handler({ feature }, { meta }) {
        return ALWAYS.has(feature) || meta.supportsFeature(feature);
    },
});
