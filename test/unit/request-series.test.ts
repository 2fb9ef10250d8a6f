/*
 * Pure logic: the request counter and latency histogram, counted in plain fields, read by a scrape
 * exactly as prom-client's own Counter and Histogram show the same requests.
 */
import t from 'tap';
import { Counter, Histogram, Registry } from 'prom-client';
import { EventStats } from '../../src/events/event-stats';
import { Metrics } from '../../src/metrics/metrics';

const COUNTER = 'restapi_http_requests_total';
const HISTOGRAM = 'restapi_http_request_duration_seconds';

/** prom-client's own metrics, as the adapter declared them before. */
function reference(): { registry: Registry; observe(route: string, method: string, status: number, seconds: number): void } {
    const registry = new Registry();
    const labelNames = ['route', 'method', 'status'];
    const counter = new Counter({ name: COUNTER, help: 'HTTP requests answered, by route template, method and status class', labelNames, registers: [registry] });
    const histogram = new Histogram({
        name: HISTOGRAM,
        help: 'Time from the request to the end of its answer, by route template, method and status class',
        labelNames,
        buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 60],
        registers: [registry],
    });
    return {
        registry,
        observe(route, method, status, seconds) {
            const statusClass = status ? `${Math.floor(status / 100)}xx` : 'aborted';
            counter.labels(route, method, statusClass).inc();
            histogram.labels(route, method, statusClass).observe(seconds);
        },
    };
}

/** The lines of the two request families in an exposition text. */
const requestLines = (text: string): string[] => text.split('\n').filter(line => line.includes(COUNTER) || line.includes(HISTOGRAM));

t.test('a scrape shows the same request lines as prom-client would', async t => {
    const metrics = new Metrics({ storageUp: () => true, open: () => ({ polling: 0, hooks: 0, sse: 0 }), events: new EventStats() });
    const theirs = reference();
    const requests: Array<[string, string, number, number]> = [
        ['/v1/state/:stateId', 'GET', 200, 0.0003],
        ['/v1/state/:stateId', 'GET', 304, 0.001],
        ['/v1/state/:stateId', 'GET', 200, 0.02],
        ['/v1/object/:objectId', 'PUT', 403, 0.07],
        ['/v1/polling', 'GET', 0, 30],
        ['/v1/command/:command', 'POST', 500, 75],
        ['/v1/command/:command', 'POST', 101, 0.5],
        // a route seen before, after others: listed where it was first seen
        ['/v1/state/:stateId', 'GET', 404, 0.002],
    ];
    for (const request of requests) {
        metrics.observe(...request);
        theirs.observe(...request);
    }
    const ours = requestLines(await metrics.text());
    t.same(ours, requestLines(await theirs.registry.metrics()));
    t.ok(ours.includes(`${COUNTER}{route="/v1/state/:stateId",method="GET",status="2xx"} 2`), 'two answers of one class count together');
    t.ok(ours.includes(`${HISTOGRAM}_bucket{le="60",route="/v1/command/:command",method="POST",status="5xx"} 0`), 'beyond the last bucket: only in +Inf');
    t.ok(ours.includes(`${HISTOGRAM}_bucket{le="+Inf",route="/v1/command/:command",method="POST",status="5xx"} 1`));
    t.ok(ours.includes(`${HISTOGRAM}_count{route="/v1/polling",method="GET",status="aborted"} 1`), 'a client gone first');
});

t.test('the JSON form names both families with their types', async t => {
    const metrics = new Metrics({ storageUp: () => true, open: () => ({ polling: 0, hooks: 0, sse: 0 }), events: new EventStats() });
    metrics.observe('/v1/state/:stateId', 'GET', 200, 0.002);
    const json = await metrics.registry.getMetricsAsJSON();
    t.same(
        json.filter(m => m.name === COUNTER || m.name === HISTOGRAM).map(m => [m.name, m.type, m.values.length]),
        [
            [COUNTER, 'counter', 1],
            [HISTOGRAM, 'histogram', 15],
        ],
    );
});
