import type * as PromClient from 'prom-client';

type Registry = PromClient.Registry;
import { RequestSeries } from './request-series';
import type { Channel, EventStats } from '../events/event-stats';

/** What `/metrics` reads when scraped, besides what it counts itself. */
export interface MetricsSources {
    storageUp(): boolean;
    open(): { polling: number; hooks: number; sse: number };
    events: EventStats;
}

export interface StateSample {
    id: string;
    name: string;
    unit: string;
    value: number;
}

const CHANNELS: Channel[] = ['polling', 'hook', 'sse'];
/** `2xx` and its kin made once, not per request (Node sends 100-999; above 599 the class is made when met). */
const STATUS_CLASSES = ['', '1xx', '2xx', '3xx', '4xx', '5xx'];

let processRegistry: Registry | undefined;
let promClient: typeof PromClient | undefined;

/**
 * prom-client (and the OpenTelemetry API it loads) is loaded by the first scrape, not at start: about
 * 150 kB of source and its code in the idle heap of every installation, most of which are never scraped.
 * Requests are counted from the start without it (src/metrics/request-series.ts).
 */
function prom(): typeof PromClient {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    promClient ??= require('prom-client') as typeof PromClient;
    return promClient;
}

/**
 * Memory, CPU, event-loop lag: the process's, however many instances it serves (inside web several,
 * loaded and unloaded). Collected once per process and shared, because prom-client cannot stop its
 * collectors again: one set per instance would leak a loop-delay monitor and a GC observer each time.
 */
function processMetrics(): Registry {
    if (!processRegistry) {
        processRegistry = new (prom().Registry)();
        prom().collectDefaultMetrics({ register: processRegistry });
    }
    return processRegistry;
}

/**
 * One prom-client registry per instance (inside web several instances share a process): request
 * counts and latencies by route template, the event core's counters; the process metrics beside it
 * are shared (processMetrics). Per-request work is a few additions (src/metrics/request-series.ts);
 * everything else is read when Prometheus scrapes.
 */
export class Metrics {
    private made: Registry | undefined;
    private readonly requests = new RequestSeries();

    constructor(private readonly sources: MetricsSources) {}

    /** This instance's registry, made at the first scrape. */
    get registry(): Registry {
        this.made ??= this.makeRegistry();
        return this.made;
    }

    private makeRegistry(): Registry {
        const { Counter, Gauge, Registry } = prom();
        const registry = new Registry();
        const sources = this.sources;
        const registers = [registry];
        for (const metric of this.requests.metrics(
            'restapi_http_requests_total',
            'HTTP requests answered, by route template, method and status class',
            'restapi_http_request_duration_seconds',
            'Time from the request to the end of its answer, by route template, method and status class',
        )) {
            registry.registerMetric(metric);
        }
        new Gauge({
            name: 'restapi_open_clients',
            help: 'Open long-polling sessions, URL hooks and event streams',
            labelNames: ['kind'],
            registers,
            collect() {
                const open = sources.open();
                this.set({ kind: 'polling' }, open.polling);
                this.set({ kind: 'hook' }, open.hooks);
                this.set({ kind: 'sse' }, open.sse);
            },
        });
        const eventCounter = <C extends Channel>(
            name: string,
            help: string,
            channels: C[],
            read: (channel: C) => number,
        ): void => {
            new Counter({
                name,
                help,
                labelNames: ['channel'],
                registers,
                collect() {
                    this.reset();
                    channels.forEach(channel => this.inc({ channel }, read(channel)));
                },
            });
        };
        eventCounter(
            'restapi_events_delivered_total',
            'Events handed to a client (session, hook queue or stream) after its filters',
            CHANNELS,
            c => sources.events.delivered[c],
        );
        eventCounter(
            'restapi_events_dropped_total',
            'Events a full client queue had to drop (the client hears of the overflow)',
            ['polling', 'hook'],
            c => sources.events.dropped[c],
        );
        new Counter({
            name: 'restapi_hook_failures_total',
            help: 'URL hook calls that failed (timeout, refused, non-2xx)',
            registers,
            collect() {
                this.reset();
                this.inc(sources.events.hookFailures);
            },
        });
        new Gauge({
            name: 'restapi_storage_connected',
            help: '1 while the connection to the ioBroker databases is up',
            registers,
            collect() {
                this.set(sources.storageUp() ? 1 : 0);
            },
        });
        return registry;
    }

    /** One request; `route` is a template (`/v1/state/:stateId`), never a raw path; status 0: the client went away first. */
    observe(route: string, method: string, statusCode: number, seconds: number): void {
        this.requests.observe(
            route,
            method,
            statusCode
                ? STATUS_CLASSES[Math.floor(statusCode / 100)] || `${Math.floor(statusCode / 100)}xx`
                : 'aborted',
            seconds,
        );
    }

    /**
     * The exposition text (the process's metrics first, then this instance's); `states`: the `iobroker_state` gauges of this scrape (what the caller may
     * read), in a registry of their own so that concurrent scrapes of different users never mix.
     */
    async text(states: StateSample[] = [], omitted = 0): Promise<string> {
        const main = (await processMetrics().metrics()) + (await this.registry.metrics());
        if (!states.length && !omitted) {
            return main;
        }
        const { Gauge, Registry } = prom();
        const scrape = new Registry();
        const gauge = new Gauge({
            name: 'iobroker_state',
            help: 'Numeric and boolean states named by the metricsStates option (booleans as 0/1)',
            labelNames: ['id', 'name', 'unit'],
            registers: [scrape],
        });
        for (const { id, name, unit, value } of states) {
            gauge.set({ id, name, unit }, value);
        }
        new Gauge({
            name: 'restapi_metrics_states_omitted',
            help: 'States matching metricsStates left out beyond the series limit',
            registers: [scrape],
        }).set(omitted);
        return main + (await scrape.metrics());
    }

    get contentType(): string {
        return this.registry.contentType;
    }
}
