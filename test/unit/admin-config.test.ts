import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { PROJECT_ROOT } from '../../scripts/embedded-storage';
import { normalizeConfig } from '../../src/config';

const read = (file: string) => JSON.parse(readFileSync(join(PROJECT_ROOT, file), 'utf8'));
const io = read('io-package.json');
const form = read('admin/jsonConfig.json');
const translations = { en: read('admin/i18n/en/translations.json'), de: read('admin/i18n/de/translations.json') };

type Item = { type?: string; label?: string; help?: string; items?: Record<string, Item> };
function fields(items: Record<string, Item>, into = new Map<string, Item>()): Map<string, Item> {
    for (const [key, item] of Object.entries(items)) {
        if (item.items) {
            fields(item.items, into);
        }
        if (!key.startsWith('_')) {
            into.set(key, item);
        }
    }
    return into;
}
const formFields = fields(form.items);
// 4.0.2's Let's Encrypt keys stay in native for old instances; certificates come from the system now
const LEGACY = ['leEnabled', 'leUpdate', 'leCheckPort'];

t.test('every option the adapter reads has a field in the admin form', async t => {
    for (const key of Object.keys(io.native).filter(k => !LEGACY.includes(k))) {
        t.ok(formFields.has(key), key);
    }
});

t.test('every default in io-package.json survives normalisation unchanged', async t => {
    const config = normalizeConfig(io.native) as unknown as Record<string, unknown>;
    const flat: Record<string, unknown> = { ...config, ...(config.limits as object) };
    for (const [key, value] of Object.entries(io.native).filter(([k]) => !LEGACY.includes(k))) {
        const expected = key === 'defaultUser' ? `system.user.${value}` : key === 'corsOrigins' || key === 'metricsStates' || key === 'trustProxy' ? [] : value;
        t.same(flat[key], expected, key);
    }
});

t.test('every label and help text exists in English and German', async t => {
    const texts = [...formFields.values(), ...Object.values(form.items as Record<string, Item>)].flatMap(item => [item.label, item.help]).filter((x): x is string => !!x);
    for (const text of texts) {
        t.ok(translations.en[text], `en: ${text}`);
        t.ok(translations.de[text], `de: ${text}`);
        if (text.endsWith('_help')) {
            t.not(translations.de[text], translations.en[text], `de differs from en: ${text}`);
        }
    }
});

t.test('static hints exist in English and German', async t => {
    const hints = collectTexts(form.items);
    t.ok(hints.includes('errorReports_hint'), 'the error report hint is on the page');
    for (const text of hints) {
        t.ok(translations.en[text], `en: ${text}`);
        t.ok(translations.de[text], `de: ${text}`);
        t.not(translations.de[text], translations.en[text], `de differs from en: ${text}`);
    }
});

function collectTexts(items: Record<string, Item & { text?: string }>, into: string[] = []): string[] {
    for (const item of Object.values(items)) {
        if (item.text) {
            into.push(item.text);
        }
        if (item.items) {
            collectTexts(item.items as Record<string, Item & { text?: string }>, into);
        }
    }
    return into;
}
