import t from 'tap';
import { startInProcess, type InProcessHost } from '../support/in-process';
import { appFixture, type AppFixture } from '../support/in-process-fixture';
import { checkedFetch } from '../support/response-check';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Validator } = require('@seriousme/openapi-schema-validator');

let host: InProcessHost;
let iob: AppFixture;
t.before(async () => {
    host = await startInProcess();
    // a real server: the redirect, the assets and HEAD are read by fetch
    iob = await appFixture(host, {}, { serve: true });
});
t.teardown(async () => {
    await iob?.close();
    await host?.stop();
});

t.test('/ redirects to the docs page, which loads Swagger UI from this server', async t => {
    const root = await checkedFetch(`${iob.baseUrl}/`, { redirect: 'manual' });
    t.equal(root.status, 302);
    t.equal(root.headers.get('location'), '/api-doc/');
    for (const path of ['/api-doc/', '/api-doc']) {
        const page = await iob.request(path);
        t.equal(page.status, 200, path);
        t.match(page.headers['content-type'], /text\/html/);
        t.notMatch(page.text, /https?:\/\//, 'no asset from another host');
        const assets = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map(m => m[1]);
        t.ok(assets.length >= 4);
        for (const asset of assets) {
            // relative, as a browser resolves them against the page it loaded
            const res = await checkedFetch(new URL(asset, `${iob.baseUrl}${path}`));
            t.equal(res.status, 200, `asset ${asset}`);
            await res.arrayBuffer();
        }
    }
});

t.test('the served document validates as OpenAPI 3.1, also under the 4.0.2 path', async t => {
    const doc = await iob.request('/api-docs/openapi.json');
    t.equal(doc.status, 200);
    const result = await new Validator().validate(doc.json);
    t.equal(result.valid, true, JSON.stringify(result.errors));
    t.ok(doc.json.paths['/v1/command/getState'].post);
    const legacy = await iob.request('/api-docs/swagger.json');
    t.same(legacy.json, doc.json);
});

t.test('docs assets: no path escapes the folder', async t => {
    for (const path of ['/api-doc/..%2F..%2Fpackage.json', '/api-doc/%2E%2E%2Fio-package.json', '/api-doc/nothing.js']) {
        const res = await iob.request(path);
        t.equal(res.status, 404, path);
        t.type(res.json.error, 'string');
    }
});

t.test('HEAD answers without a body', async t => {
    const res = await checkedFetch(`${iob.baseUrl}/v1/command/getVersion`, { method: 'HEAD' });
    t.equal(res.status, 200);
    t.equal((await res.text()).length, 0);
});

t.test('noUI turns the page and the document off', async t => {
    await iob.restart({ noUI: true });
    for (const path of ['/', '/api-doc/', '/api-docs/openapi.json']) {
        t.equal((await iob.request(path)).status, 404, path);
    }
    t.equal((await iob.request('/v1/command/getVersion')).status, 200);
    await iob.restart({ noUI: false });
});
