/*
 * The settings page and the links as a user meets them in the real admin adapter: a real
 * js-controller host starts admin, web and this adapter; headless Chromium opens admin's pages.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import type { Browser, Locator, Page } from 'playwright-core';
import { PROJECT_ROOT, writeInstance } from '../scripts/embedded-storage';
import { launchChromium } from './support/browser';
import { startController, type Controller } from './support/controller';
import { notOnThisNode } from './support/once-per-ci';
import { freePort } from './support/ports';
import { until200, writeAdminInstance, writeWebInstance } from './support/real-admin';

const INSTANCE = 'system.adapter.rest-api.0';
const SCREENSHOTS = join(PROJECT_ROOT, 'build', 'screenshots');
const jsonConfig = JSON.parse(readFileSync(join(PROJECT_ROOT, 'admin', 'jsonConfig.json'), 'utf8'));
const translations = (lang: string): Record<string, string> =>
    JSON.parse(readFileSync(join(PROJECT_ROOT, 'admin', 'i18n', lang, 'translations.json'), 'utf8'));

let browser: Browser | undefined;
let skip = '';
let ctl: Controller;
let page: Page;
const ports = { api: 0, admin: 0, web: 0 };
const errors: string[] = [];

t.before(async () => {
    const elsewhere = notOnThisNode("the settings page in the real admin, in a browser,");
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
    ports.api = await freePort();
    ports.admin = await freePort();
    ports.web = await freePort();
    ctl = await startController(async storage => {
        await writeInstance(storage, { port: ports.api, bind: '127.0.0.1' });
        await writeAdminInstance(storage, ports.admin);
        await writeWebInstance(storage, ports.web);
        // past admin's first-start wizard, as after a user finished it
        const config = await storage.objects.getObjectAsync('system.config');
        Object.assign(config.common, { licenseConfirmed: true, tipsDisabled: true, language: 'en' });
        await storage.objects.setObjectAsync('system.config', config);
    });
    const ended = (): string | undefined =>
        ctl.output().includes('terminated') ? ctl.output().slice(-3000) : undefined;
    await until200(`http://127.0.0.1:${ports.admin}/`, ended);
    await until200(`http://127.0.0.1:${ports.api}/`, ended);
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('pageerror', err => errors.push(err.message));
    mkdirSync(SCREENSHOTS, { recursive: true });
});
t.teardown(async () => {
    await browser?.close();
    await ctl?.stop();
});

const native = async (): Promise<Record<string, unknown>> =>
    (await ctl.storage.objects.getObjectAsync(INSTANCE)).native;

interface Option {
    tab: string;
    key: string;
    label: string;
}

/** The options of the settings page with a label, by tab, and whether the page shows them for this config. */
function options(config: Record<string, unknown>): { shown: Option[]; tabs: string[] } {
    const shown: Option[] = [];
    const tabs: string[] = [];
    for (const tab of Object.values<{
        label: string;
        items: Record<string, { label?: string; hidden?: string; type: string }>;
    }>(jsonConfig.items)) {
        tabs.push(tab.label);
        for (const [key, item] of Object.entries(tab.items)) {
            // the page's own rule, with this config as `data`
            const hidden = item.hidden ? (new Function('data', `return ${item.hidden}`)(config) as boolean) : false;
            if (item.label && !hidden) {
                shown.push({ tab: tab.label, key, label: item.label });
            }
        }
    }
    return { shown, tabs };
}

/** Loads admin anew at `hash` (a change of the hash alone keeps what admin read before). */
async function openAdmin(hash: string): Promise<void> {
    await page.goto('about:blank');
    await page.goto(`http://127.0.0.1:${ports.admin}/#${hash}`);
}

async function openSettings(): Promise<void> {
    await openAdmin(`tab-instances/config/${INSTANCE}`);
    await page.getByRole('tab').first().waitFor({ timeout: 60_000 });
}

async function labelsShown(t: Test, lang: string): Promise<void> {
    const words = translations(lang);
    const { shown, tabs } = options(await native());
    for (const tab of tabs) {
        const title = words[tab] ?? tab;
        await page.getByRole('tab', { name: title, exact: true }).click();
        const wanted = shown.filter(o => o.tab === tab).map(o => words[o.label] ?? o.label);
        // some fields render once what they list has loaded (the instance selectors): wait for them, up to a bound
        let text = '';
        for (const end = Date.now() + 15_000; Date.now() < end; await page.waitForTimeout(200)) {
            text = String(await page.evaluate('document.body.innerText'));
            if (wanted.every(label => text.includes(label))) {
                break;
            }
        }
        for (const option of shown.filter(o => o.tab === tab)) {
            const label = words[option.label];
            t.ok(label, `${lang}: ${option.label} is translated`);
            t.ok(text.includes(label), `${lang}, tab ${title}: ${option.key} shows "${label}"`);
        }
    }
}

t.test('the settings page renders in the real admin with every option labelled, in English and in German', async t => {
    if (!browser) {
        t.plan(0, skip);
        return;
    }
    await openSettings();
    await labelsShown(t, 'en');
    await page.getByRole('tab', { name: 'Server', exact: true }).click();
    await page.getByText('TCP port of the API', { exact: false }).waitFor();
    await page.waitForTimeout(500);
    await page.screenshot({ path: join(SCREENSHOTS, 'settings.png') });

    const config = await ctl.storage.objects.getObjectAsync('system.config');
    config.common.language = 'de';
    await ctl.storage.objects.setObjectAsync('system.config', config);
    await openSettings();
    await labelsShown(t, 'de');
    config.common.language = 'en';
    await ctl.storage.objects.setObjectAsync('system.config', config);
    t.same(errors, [], 'no script error on the page');
});

t.test('the settings page at a phone width: nothing wider than the screen, the fields in view', async t => {
    if (!browser) {
        t.plan(0, skip);
        return;
    }
    await page.setViewportSize({ width: 390, height: 844 });
    t.teardown(() => page.setViewportSize({ width: 1280, height: 900 }));
    await openSettings();
    await page.getByRole('tab', { name: 'Server', exact: true }).click();
    const [scrollWidth, innerWidth] = (await page.evaluate(
        '[document.documentElement.scrollWidth, innerWidth]',
    )) as number[];
    t.ok(scrollWidth <= innerWidth, `no sideways scrolling (${scrollWidth} <= ${innerWidth})`);
    const box = await page.getByLabel('Port', { exact: true }).boundingBox();
    t.ok(box && box.x >= 0 && box.x + box.width <= 390, `the port field fits the screen (${JSON.stringify(box)})`);
    await page.screenshot({ path: join(SCREENSHOTS, 'settings-phone.png') });
});

/** Clicks what opens a link in a new tab, and checks that tab shows this instance's docs page from `expected`. */
async function follow(t: Test, what: string, link: Locator, expected: string): Promise<void> {
    await link.waitFor({ timeout: 30_000 });
    const [opened] = await Promise.all([page.context().waitForEvent('page'), link.click()]);
    await opened.waitForLoadState();
    // the docs page lives under api-doc/, where the address it was opened at sends the browser
    t.ok(opened.url().startsWith(expected), `${what} opens ${expected} (${opened.url()})`);
    t.equal(await opened.title(), 'ioBroker REST API', `${what}: the docs page of this instance`);
    await opened.close();
}

/** The Quick-access tile and the link in the instance list, followed in the browser. */
async function adminLinks(t: Test, expected: string): Promise<void> {
    await openAdmin('tab-intro');
    await follow(t, 'the Quick-access tile', page.locator(`a[href="${expected}"]`).first(), expected);
    await openAdmin('tab-instances');
    await follow(t, "the instance's link", page.locator('[aria-label="Instance link rest-api.0"] button'), expected);
}

t.test("admin's links open this instance's docs page, standalone and after a saved port change", async t => {
    if (!browser) {
        t.plan(0, skip);
        return;
    }
    await adminLinks(t, `http://127.0.0.1:${ports.api}/`);

    // a port changed and saved in the page: the controller restarts the instance on it
    const port = await freePort();
    await openSettings();
    await page.getByRole('tab', { name: 'Server', exact: true }).click();
    await page.getByLabel('Port', { exact: true }).fill(String(port));
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const deadline = Date.now() + 10_000;
    while ((await native()).port !== port && Date.now() < deadline) {
        await new Promise(r => setTimeout(r, 100));
    }
    t.equal((await native()).port, port, 'saved into native');
    await until200(`http://127.0.0.1:${port}/`, () => undefined, 60_000);
    t.pass('the restarted adapter answers on the new port');
    await adminLinks(t, `http://127.0.0.1:${port}/`);
});

t.test('run as part of a web instance, chosen in the page: the links open the docs page under web', async t => {
    if (!browser) {
        t.plan(0, skip);
        return;
    }
    await openSettings();
    await page.getByRole('tab', { name: 'Server', exact: true }).click();
    // admin's instance selector: a label beside a combobox, not tied to it
    const field = page.locator('.MuiFormControl-root', {
        has: page.getByText('Run as part of a web instance', { exact: true }),
    });
    await field.getByRole('combobox').click();
    await page.getByRole('option', { name: /web\.0/ }).click();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const deadline = Date.now() + 10_000;
    while ((await native()).webInstance !== 'web.0' && Date.now() < deadline) {
        await new Promise(r => setTimeout(r, 100));
    }
    t.equal((await native()).webInstance, 'web.0', 'saved into native');
    // web restarts itself to load the extension, and the controller starts it again
    await until200(`http://127.0.0.1:${ports.web}/rest-api/`, () => undefined, 90_000);
    await adminLinks(t, `http://127.0.0.1:${ports.web}/rest-api/`);
});
