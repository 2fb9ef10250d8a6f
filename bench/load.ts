/*
 * One autocannon run in a process of its own, so the load generator never shares an event loop with
 * the storage servers of the bench process. Reads its options as JSON from argv, prints the result.
 */
import autocannon from 'autocannon';

/** With `randomIds`, every request asks for another id: `<prefix><0..count-1><suffix>`. */
type LoadOptions = autocannon.Options & { randomIds?: { prefix: string; count: number; suffix?: string } };

const { randomIds, ...options } = JSON.parse(process.argv[2]) as LoadOptions;
if (randomIds) {
    const base = new URL(options.url);
    options.requests = [
        {
            setupRequest: (request: Record<string, unknown>) => ({
                ...request,
                path: `${base.pathname.replace(/\/$/, '')}${randomIds.prefix}${Math.floor(Math.random() * randomIds.count)}${randomIds.suffix ?? ''}`,
            }),
        },
    ];
}
autocannon(options, (err, result) => {
    if (err) {
        console.error(err);
        process.exitCode = 1;
        return;
    }
    const { requests, latency, non2xx, errors, timeouts } = result;
    console.log(JSON.stringify({ rps: requests.average, p50: latency.p50, p99: latency.p99, non2xx, errors, timeouts }));
});
