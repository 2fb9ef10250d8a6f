/*
 * The docs page as a user sees it: Swagger UI in headless Chromium, served by the adapter itself.
 */
import t from 'tap';
import type { Browser, Locator, Page } from 'playwright-core';
import { launchChromium } from './support/browser';
import { startIobroker, type IobFixture } from './support/iobroker';
import { notOnThisNode } from './support/once-per-ci';

const STATE_ID = '0_userdata.0.docs_page_value';
const VALUE = 271828;
const GET_STATE = 'operations-commands-command_getState_get';

let iob: IobFixture;
let browser: Browser | undefined;
let skip = '';
let page: Page;

t.before(async () => {
    const elsewhere = notOnThisNode('the docs page in a browser');
    if (elsewhere) {
        skip = elsewhere;
        return;
    }
    const launched = await launchChromium();
    browser = launched.browser;
    skip = launched.skip ?? '';
    if (!browser) {
        return;
    }
    iob = await startIobroker();
    await iob.createState(STATE_ID, { type: 'number' }, VALUE);
    page = await browser.newPage();
});
t.teardown(async () => {
    await browser?.close();
    await iob?.stop();
});

/** Swagger UI has fetched and parsed the document (a minute allowed: it is seconds of CPU on a busy machine). */
async function specLoaded(page: Page): Promise<void> {
    await page.waitForFunction('window.ui?.specSelectors.loadingStatus() === "success"', undefined, { timeout: 60_000 });
}

/** Operation ids of the rendered blocks, collected while scrolling: Swagger UI only renders what is in view. */
async function scrollThrough(page: Page, direction: 1 | -1, stopAt?: string): Promise<Set<string>> {
    const seen = new Set<string>();
    const collect = async (): Promise<void> => {
        for (const id of await page.$$eval('.opblock[id]', blocks => blocks.map(b => b.id))) {
            seen.add(id);
        }
    };
    for (let step = 0; step < 1000; step++) {
        await collect();
        // a string, as the tests compile without the DOM library
        const [y, height, view] = (await page.evaluate('[scrollY, document.documentElement.scrollHeight, innerHeight]')) as number[];
        if (stopAt && seen.has(stopAt)) {
            return seen;
        }
        if (direction === 1 ? y + view >= height : y <= 0) {
            // the last screen may still be rendering
            await page.waitForTimeout(300);
            await collect();
            return seen;
        }
        // less than a screen per step, so every block is in view at least once
        await page.mouse.wheel(0, direction * 400);
        await page.waitForTimeout(50);
    }
    throw new Error('the page did not scroll to its end');
}

t.test('/ opens the docs page with every operation, getState among them', async t => {
    if (!browser) {
        return t.plan(0, skip);
    }
    const errors: string[] = [];
    page.on('pageerror', err => errors.push(err.message));
    await page.goto(`${iob.baseUrl}/`);
    t.match(page.url(), /\/api-doc\/$/, 'redirected to the docs page');
    await specLoaded(page);
    await page.locator('.opblock').first().waitFor({ timeout: 30_000 });
    const rendered = await scrollThrough(page, 1);
    const doc = (await iob.request('/api-docs/openapi.json')).json as { paths: Record<string, Record<string, { tags: string[]; operationId: string }>> };
    const documented = Object.values(doc.paths).flatMap(item => Object.values(item).map(op => `operations-${op.tags[0]}-${op.operationId}`));
    t.ok(documented.length > 100, `${documented.length} operations in the document`);
    t.same([...rendered].sort(), documented.sort(), 'every documented operation is rendered');
    t.same(errors, [], 'no script errors');
});

t.test('trying getState from the page shows the stored value', async t => {
    if (!browser) {
        return t.plan(0, skip);
    }
    await scrollThrough(page, -1, GET_STATE);
    const operation = page.locator(`#${GET_STATE}`);
    t.match(await operation.locator('.opblock-summary-path').innerText(), /\/v1\/command\/getState/, 'getState is listed with its path');
    t.match(await operation.locator('.opblock-summary-description').innerText(), 'Read the current state of one id', 'and its summary');
    await operation.locator('.opblock-summary').first().click();
    // tryItOutEnabled opens the form at once; without it the button does
    const tryIt = operation.getByRole('button', { name: 'Try it out' });
    if (await tryIt.isVisible()) {
        await tryIt.click();
    }
    await operation.locator('tr[data-param-name="id"] input').fill(STATE_ID);
    await operation.getByRole('button', { name: 'Execute' }).click();
    const response = operation.locator('.live-responses-table');
    const status = response.locator('tbody .response-col_status');
    await status.waitFor({ timeout: 30_000 });
    t.equal((await status.innerText()).trim(), '200', 'status 200 in the response panel');
    const body = await response.locator('tbody .response-col_description pre.microlight').first().innerText();
    t.match(JSON.parse(body), { error: null, result: { val: VALUE, ack: true } }, 'the response panel shows the state');
    const requestUrl = await operation.locator('.request-url pre').innerText();
    t.match(requestUrl, `/v1/command/getState?id=${STATE_ID}`, 'the request went to this server');
});

interface DocOperation {
    tags: string[];
    operationId: string;
    responses: Record<string, { content?: Record<string, unknown> }>;
}

/** The first operation of every tag, and the answers of other kinds: text, binary, an event stream. */
function sampleOperations(doc: { paths: Record<string, Record<string, DocOperation>> }): DocOperation[] {
    const all = Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method, op })));
    const byTag = new Map<string, DocOperation>();
    for (const { op } of all) {
        if (!byTag.has(op.tags[0])) {
            byTag.set(op.tags[0], op);
        }
    }
    const kinds = all.filter(({ path, method }) => method === 'get' && ['/v1/state/{stateId}/plain', '/v1/file/{objectId}/{fileName}', '/v1/events', '/v1/state/{stateId}'].includes(path));
    return [...new Set([...byTag.values(), ...kinds.map(k => k.op)])];
}

/**
 * Opens one operation through the page's own deep-link action (it opens the tag and the operation and
 * scrolls there; Swagger UI renders only what is in view) and waits for its answers table. On a busy
 * machine the action can land before the tag's section is laid out and open nothing: then it is done
 * again, a few times, each with a bounded wait.
 */
async function openOperation(page: Page, op: DocOperation): Promise<Locator> {
    const block = page.locator(`#operations-${op.tags[0]}-${op.operationId}`);
    const table = block.locator('.responses-table').first();
    let lastError: unknown;
    for (let attempt = 0; attempt < 4; attempt++) {
        await page.evaluate(`window.ui.layoutActions.parseDeepLinkHash(${JSON.stringify(`#/${op.tags[0]}/${op.operationId}`)})`);
        try {
            await table.waitFor({ timeout: 15_000 });
            return block;
        } catch (err) {
            lastError = err;
        }
    }
    throw lastError;
}

t.test('every answer of the sampled operations shows an example and its schema', async t => {
    if (!browser) {
        return t.plan(0, skip);
    }
    const doc = (await iob.request('/api-docs/openapi.json')).json as { paths: Record<string, Record<string, DocOperation>> };
    const sample = sampleOperations(doc);
    const tags = new Set(Object.values(doc.paths).flatMap(item => Object.values(item).map(op => op.tags[0])));
    t.same(new Set(sample.map(op => op.tags[0])), tags, `one operation of each of the ${tags.size} tags, and ${sample.length - tags.size} more`);
    // one page load: each reload parses the whole document again (seconds per operation). The page's
    // own deep-link action opens and scrolls to an operation as a link does on load (the last test loads one)
    await page.goto('about:blank');
    await page.goto(`${iob.baseUrl}/api-doc/`);
    await specLoaded(page);
    for (const op of sample) {
        const block = await openOperation(page, op);
        for (const [status] of Object.entries(op.responses).filter(([code, r]) => r.content && /^\d{3}$/.test(code))) {
            const row = block.locator(`.responses-table tr.response[data-code="${status}"]`);
            t.equal(await row.count(), 1, `${op.operationId} ${status} is listed`);
            const tabs = await row.locator('.model-example .tab').innerText().catch(() => '');
            t.match(tabs, /Example Value[\s\S]*Schema/, `${op.operationId} ${status} offers an example and the schema`);
            const example = await row.locator('.model-example pre').first().innerText().catch(() => '');
            t.ok(example.trim().length > 0, `${op.operationId} ${status} shows an example value`);
        }
        // closed again, so the page does not grow with every operation checked
        await page.evaluate(`window.ui.layoutActions.show(${JSON.stringify(['operations', op.tags[0], op.operationId])}, false)`);
    }
});

t.test('a command operation shows the summary and description of its command file', async t => {
    if (!browser) {
        return t.plan(0, skip);
    }
    const { default: getState } = (await import('../commands/getState')) as { default: { summary: string; description?: string } };
    // the page the test before loaded is used again: a load parses the whole document once more (seconds
    // of CPU, and over 30 s on a busy machine)
    if (!/\/api-doc\//.test(page.url())) {
        await page.goto(`${iob.baseUrl}/api-doc/`);
    }
    await specLoaded(page);
    const block = await openOperation(page, { tags: ['commands'], operationId: 'command_getState_get', responses: {} });
    await block.locator('.opblock-description-wrapper').waitFor({ timeout: 30_000 });
    t.equal((await block.locator('.opblock-summary-description').innerText()).trim(), getState.summary);
    t.match(await block.locator('.opblock-description-wrapper').innerText(), (getState.description ?? getState.summary).slice(0, 40));
});
