import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';
import { ObjectSchema } from '../src/http/schemas';

type Repos = { repositories?: Record<string, { json?: { _repoInfo?: unknown } | null }> };

export default defineCommand({
    name: 'getCompactSystemRepositories',
    summary: 'system.repositories with each repository reduced to its _repoInfo',
    params: Type.Object({}),
    permission: { type: 'object', operation: 'read' },
    effect: 'read',
    envelope: 'result',
    result: Type.Union([ObjectSchema, Type.Null()]),
    adminOnly: true,
    async handler(_params, { data }) {
        const repos = await data.getObject('system.repositories');
        if (!repos) {
            return null;
        }
        const copy = structuredClone<ioBroker.Object & { native: Repos }>(repos);
        for (const repo of Object.values(copy.native?.repositories ?? {})) {
            if (repo?.json) {
                repo.json = { _repoInfo: repo.json._repoInfo };
            }
        }
        return copy;
    },
});
