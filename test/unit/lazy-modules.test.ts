import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import t from 'tap';

const src = join(__dirname, '..', '..', 'src');

/** The packages among `names` a fresh process has loaded after running `script` (with `src` bound). */
function loaded(script: string, names: string[]): string[] {
    const code = `
        const src = ${JSON.stringify(src)};
        (async () => {
            ${script}
            const files = Object.keys(require.cache);
            console.log(JSON.stringify(${JSON.stringify(names)}.filter(name => files.some(f => f.includes('/node_modules/' + name + '/')))));
        })();`;
    return JSON.parse(execFileSync(process.execPath, ['-e', code], { encoding: 'utf8' })) as string[];
}

t.test('the routes and the metrics load neither luxon nor prom-client until used', async t => {
    const atStart = `require(src + '/routes/index.js'); require(src + '/metrics/metrics.js');`;
    t.same(loaded(atStart, ['luxon', 'prom-client']), []);
});

t.test('the first scrape loads prom-client, the first calendar step luxon', async t => {
    const used = `
        const { Metrics } = require(src + '/metrics/metrics.js');
        const { EventStats } = require(src + '/events/event-stats.js');
        const metrics = new Metrics({ storageUp: () => true, open: () => ({ polling: 0, hooks: 0, sse: 0 }), events: new EventStats() });
        metrics.observe('/v1/state/:stateId', 'GET', 200, 0.001);
        const text = await metrics.text();
        if (!text.includes('restapi_http_requests_total{route="/v1/state/:stateId",method="GET",status="2xx"} 1')) throw new Error(text);
        require(src + '/history/calendar.js');
        require(src + '/history/luxon.js').dateTime().fromMillis(0, { zone: 'UTC' });`;
    t.same(loaded(used, ['luxon', 'prom-client']), ['luxon', 'prom-client']);
});
