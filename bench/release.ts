/*
 * The published release a compare run measures next to this build (`npm run bench -- --compare 4.0.2`):
 * installed once from npm into a cache directory outside the repository (`--release-cache`, default
 * ~/.cache/iobroker.rest-api-bench), together with the js-controller version our storage runs, and
 * started as its own instance on the bench's storage.
 * Bench code only: nothing here is part of the adapter.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONTROLLER_DIR, PROJECT_ROOT } from '../scripts/embedded-storage';

const { overridesKey } = require('../../scripts/cache-key.js') as { overridesKey: () => string };

export interface Release {
    version: string;
    dir: string;
    main: string;
    ioPackageFile: string;
}

const readJson = (file: string): Record<string, unknown> => JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;

function installedVersion(packageDir: string): string | undefined {
    const file = join(packageDir, 'package.json');
    return existsSync(file) ? (readJson(file).version as string) : undefined;
}

function npmInstall(dir: string, timeoutMs: number): Promise<{ ok: boolean; output: string }> {
    return new Promise(resolve => {
        // after timeoutMs npm is killed (SIGTERM) and ends without exit code 0
        const child = spawn('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs });
        let output = '';
        child.stdout.on('data', d => (output += d));
        child.stderr.on('data', d => (output += d));
        child.on('error', err => resolve({ ok: false, output: err.message }));
        child.on('exit', code => resolve({ ok: code === 0, output }));
    });
}

/** The release, installed on first use into `<cacheDir>/<version>-controller-<version>-<overrides hash>`; `skip` says why it cannot be measured (e.g. no network). */
export async function installRelease(version: string, cacheDir: string): Promise<Release | { skip: string }> {
    // the release's adapter-core finds js-controller in its own node_modules: the same version as our storage
    const controller = installedVersion(CONTROLLER_DIR);
    if (!controller) {
        return { skip: 'no js-controller in the dev workspace to pair the release with; the comparison is skipped' };
    }
    const overrides = (readJson(join(PROJECT_ROOT, 'package.json')).overrides ?? {}) as Record<string, string>;
    // named by all that the install depends on, so an install made for another controller is never taken
    const dir = join(cacheDir, `${version}-controller-${controller}-${overridesKey()}`);
    const packageDir = join(dir, 'node_modules', 'iobroker.rest-api');
    if (installedVersion(packageDir) !== version) {
        mkdirSync(dir, { recursive: true });
        writeFileSync(join(dir, 'package.json'), JSON.stringify({ private: true, dependencies: { 'iobroker.rest-api': version, 'iobroker.js-controller': controller }, overrides }, null, 2));
        console.log(`bench: installing iobroker.rest-api@${version} with js-controller ${controller} into ${dir} (once)`);
        const { ok, output } = await npmInstall(dir, 240_000);
        if (!ok || installedVersion(packageDir) !== version) {
            const reason = output.trim().split('\n').filter(Boolean).slice(-2).join(' ') || 'npm gave no reason';
            return { skip: `iobroker.rest-api@${version} could not be installed from npm (${reason}); the comparison is skipped` };
        }
    }
    const main = (readJson(join(packageDir, 'package.json')).main as string | undefined) ?? 'main.js';
    return { version, dir, main: join(packageDir, main), ioPackageFile: join(packageDir, 'io-package.json') };
}
