/*
 * Headless Chromium for the browser tests: playwright-core driving the system's Chromium (Debian
 * package `chromium`), so no browser download is needed. Without one the tests skip, saying why.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

export type Launched = { browser: Browser; skip?: undefined } | { browser?: undefined; skip: string };

/** Launches Chromium, or answers the reason it cannot (for `t.plan(0, skip)`). */
export async function launchChromium(): Promise<Launched> {
    if (!existsSync(CHROMIUM_PATH)) {
        return { skip: `no Chromium at ${CHROMIUM_PATH} (apt-get install chromium, or set CHROMIUM_PATH)` };
    }
    try {
        // --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start
        const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: ['--no-sandbox'], timeout: 30_000 });
        return { browser };
    } catch (err) {
        return { skip: `Chromium at ${CHROMIUM_PATH} did not start: ${(err as Error).message.split('\n')[0]}` };
    }
}
