import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { PROJECT_ROOT } from '../../scripts/embedded-storage';
import { normalizeConfig } from '../../src/instance/config';

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

// the languages ioBroker's admin offers, in its order
const LANGUAGES = ['en', 'de', 'ru', 'pt', 'nl', 'fr', 'it', 'es', 'pl', 'uk', 'zh-cn'];

t.test('the settings page is translated into every language admin offers: same keys as English, none empty, not copied', async t => {
    const english = translations.en as Record<string, string>;
    const englishKeys = Object.keys(english).sort();
    t.same(englishKeys.filter(key => typeof english[key] !== 'string' || !english[key].trim()), [], 'en: no empty text');
    for (const lang of LANGUAGES.slice(1)) {
        const file = `admin/i18n/${lang}/translations.json`;
        if (!existsSync(join(PROJECT_ROOT, file))) {
            t.fail(`${lang}: ${file} is missing`);
            continue;
        }
        const texts = read(file) as Record<string, string>;
        const keys = Object.keys(texts).sort();
        // the same set as English (German keeps its own order, the others follow English's)
        t.same(englishKeys.filter(key => !keys.includes(key)), [], `${lang}: no key of en missing`);
        t.same(keys.filter(key => !englishKeys.includes(key)), [], `${lang}: no key beyond those of en`);
        t.same(keys.filter(key => typeof texts[key] !== 'string' || !texts[key].trim()), [], `${lang}: no empty text`);
        // a word such as "Port" or "Server" may be the same; a copied file is not
        const copied = englishKeys.filter(key => texts[key] === english[key]);
        t.ok(copied.length <= englishKeys.length * 0.15, `${lang}: ${copied.length} of ${englishKeys.length} texts equal to English (${copied.join(', ')})`);
    }
});

t.test('io-package.json: title, description and every news entry in every language', async t => {
    const multilingual: Record<string, Record<string, string>> = { titleLang: io.common.titleLang, desc: io.common.desc };
    for (const [version, news] of Object.entries(io.common.news as Record<string, Record<string, string>>)) {
        multilingual[`news ${version}`] = news;
    }
    for (const [what, texts] of Object.entries(multilingual)) {
        t.same(LANGUAGES.filter(lang => typeof texts[lang] !== 'string' || !texts[lang].trim()), [], `${what}: every language has a text`);
        const copies = LANGUAGES.slice(1).filter(lang => texts[lang] === texts.en);
        // "REST API" is written so in several languages; longer texts are translated
        t.ok(what === 'titleLang' || copies.length === 0, `${what}: no English copies (${copies.join(', ')})`);
    }
});
