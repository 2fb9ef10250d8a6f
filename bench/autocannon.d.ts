// The part of autocannon's API the bench uses (the package ships no types).
declare module 'autocannon' {
    namespace autocannon {
        interface Options {
            url: string;
            connections?: number;
            duration?: number;
            method?: string;
            headers?: Record<string, string>;
            body?: string;
            /** Each request may be changed before it is sent (e.g. another path). */
            requests?: Array<{ setupRequest?: (request: Record<string, unknown>) => Record<string, unknown> }>;
        }
        interface Histogram {
            average: number;
            p50: number;
            p99: number;
        }
        interface Result {
            requests: Histogram;
            latency: Histogram;
            non2xx: number;
            errors: number;
            timeouts: number;
        }
    }
    function autocannon(options: autocannon.Options, done: (err: Error | null, result: autocannon.Result) => void): void;
    export = autocannon;
}
