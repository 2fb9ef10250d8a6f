import { Type } from '@sinclair/typebox';
import type { Config } from '../instance/config';
import { stateSamples } from '../metrics/state-samples';
import { defineRoute, type Route } from '../routing/route';
import { Reply } from '../http/send';

/** `GET /metrics`: Prometheus text exposition; public only when `metricsPublic` says so. */
export function metricsRoute(config: Config): Route {
    return defineRoute({
        method: 'GET',
        path: '/metrics',
        summary:
            'Metrics in the Prometheus text format: requests, events, clients, process, storage link, chosen states',
        description:
            'Request counts and latencies by route template, method and status class; open long-polling sessions, URL hooks and ' +
            'event streams; events delivered and dropped; hook failures; process memory, CPU and event-loop lag; whether the ' +
            'database link is up. States matching the metricsStates option appear as `iobroker_state` gauges (booleans as 0/1), ' +
            'those the caller may read, at most 1,000 series. Without credentials only when the metricsPublic option is on.',
        tag: 'other',
        permission: null,
        scoped: 'metrics',
        // with auth off it runs as the default user like every route, so that user's rights pick the states
        public: config.auth && config.metricsPublic,
        offline: true,
        responses: {
            200: { description: 'Prometheus text exposition format 0.0.4', content: { 'text/plain': Type.String() } },
        },
        async handler(_req, ctx) {
            const { metrics } = ctx.meta;
            // while the database is away the scrape still answers (restapi_storage_connected 0), without states
            const withStates = config.metricsStates.length > 0 && ctx.meta.storageUp();
            const { samples, omitted } = withStates
                ? await stateSamples(ctx.data, !ctx.user, config.metricsStates)
                : { samples: [], omitted: 0 };
            return Reply.text(await metrics.text(samples, omitted), metrics.contentType);
        },
    });
}
