/*
 * Pure logic: process metrics are collected once per process and shared by every instance's
 * registry (inside web several instances live in one process and are loaded and unloaded).
 */
import t from 'tap';
import { EventStats } from '../../src/events/event-stats';
import { Metrics } from '../../src/metrics/metrics';

const sources = () => ({ storageUp: () => true, open: () => ({ polling: 0, hooks: 0, sse: 0 }), events: new EventStats() });

/** The names of the metric families in an exposition text, in order. */
const families = (text: string) => [...text.matchAll(/^# TYPE (\S+) /gm)].map(m => m[1]);

t.test('every instance shows the process metrics once, and its own counters', async t => {
    const first = new Metrics(sources());
    const second = new Metrics(sources());
    first.observe('/v1/state/:stateId', 'GET', 200, 0.01);
    const [a, b] = [await first.text(), await second.text()];
    for (const text of [a, b]) {
        const names = families(text);
        t.equal(names.filter(n => n === 'process_cpu_user_seconds_total').length, 1, 'process CPU, once');
        t.ok(names.includes('nodejs_eventloop_lag_seconds'), 'event-loop lag');
        t.equal(new Set(names).size, names.length, 'no family twice');
    }
    t.match(a, /restapi_http_requests_total\{route="\/v1\/state\/:stateId",method="GET",status="2xx"\} 1/);
    t.notMatch(b, /restapi_http_requests_total\{/, 'the other instance counted nothing');
});
