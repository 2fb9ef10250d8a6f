/*
 * The package users get: `npm pack` holds only what runs, and the tarball installed with production
 * dependencies only loads every runtime file without a devDependency.
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import type { RequireReport } from './support/require-installed';

const PROJECT_ROOT = join(__dirname, '..', '..');
const run = promisify(execFile);
t.setTimeout(150_000);

const ALLOWED = [/^build\/src\//, /^build\/commands\//, /^admin\//, /^docs-page\//, /^examples\//, /^(io-package\.json|package\.json|README\.md|LICENSE)$/];
// TypeScript only as the typed-client example users read and compile themselves
const FORBIDDEN = [/^build\/(test|bench|scripts)\//, /^test\//, /^bench\//, /^src\//, /^commands\//, /^tap-snapshots\//, /^iobroker-data\//, /^(?!examples\/).*\.ts$/, /\.tgz$/];
const REQUIRED = ['package.json', 'io-package.json', 'README.md', 'LICENSE', 'build/src/main.js', 'build/src/extension.js', 'admin/jsonConfig.json', 'docs-page/index.html'];

interface PackResult {
    filename: string;
    files: Array<{ path: string }>;
}

const work = mkdtempSync(join(tmpdir(), 'rest-api-package-'));
t.teardown(() => rmSync(work, { recursive: true, force: true }));
const env: NodeJS.ProcessEnv = { ...process.env, SCARF_ANALYTICS: 'false' };
delete env.IOBROKER_DATA_DIR;
delete env.NODE_PATH;
// no preloads from the caller's environment; what tap injects anyway, require-installed ignores
delete env.NODE_OPTIONS;

let tarball = '';

t.test('the tarball holds only what runs', async t => {
    t.ok(existsSync(join(PROJECT_ROOT, 'build', 'src', 'main.js')), 'built before packing (scripts/test.js builds)');
    // the build is fresh: packing must not rebuild it under the feet of the tests running in parallel
    const { stdout } = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], { cwd: PROJECT_ROOT, env, timeout: 60_000 });
    const [result] = JSON.parse(stdout) as PackResult[];
    tarball = join(work, result.filename);
    const files = result.files.map(f => f.path);
    t.same(files.filter(f => !ALLOWED.some(re => re.test(f))), [], 'no file outside the allowed set');
    t.same(files.filter(f => FORBIDDEN.some(re => re.test(f))), [], 'no tests, benchmarks, sources or data');
    t.same(REQUIRED.filter(f => !files.includes(f)), [], 'the files an installation needs');
});

t.test('installed with production dependencies only, every runtime file loads', async t => {
    if (!tarball) {
        t.fail('no tarball');
        return;
    }
    const install = join(work, 'install');
    mkdirSync(install);
    writeFileSync(join(install, 'package.json'), JSON.stringify({ name: 'install-check', private: true, scarfSettings: { enabled: false } }));
    await run('npm', ['install', '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund', '--no-package-lock', tarball], { cwd: install, env, timeout: 120_000 });
    const pkg = join(install, 'node_modules', 'iobroker.rest-api');
    for (const dev of ['typescript', 'tap', '@iobroker/testing', 'iobroker.js-controller']) {
        t.notOk(existsSync(join(install, 'node_modules', dev)), `devDependency ${dev} is not installed`);
    }

    // The host part of a real installation: adapter-core looks for js-controller when it is loaded
    // (and exits with code 10 without it). The stub has only the files adapter-core resolves then.
    cpSync(join(PROJECT_ROOT, 'test', 'support', 'js-controller-stub'), join(install, 'node_modules', 'iobroker.js-controller'), { recursive: true });

    const loader = join(PROJECT_ROOT, 'build', 'test', 'support', 'require-installed.js');
    let report: RequireReport;
    try {
        const { stdout } = await run(process.execPath, [loader, install, pkg], { cwd: install, env, timeout: 30_000 });
        report = JSON.parse(stdout.trim().split('\n').pop()!) as RequireReport;
    } catch (err) {
        // e.g. adapter-core's process.exit(10) when it finds no js-controller
        const { code, stdout, stderr } = err as { code?: number; stdout?: string; stderr?: string };
        t.fail(`requiring the installed files ended the process (exit code ${code}): ${stdout ?? ''}${stderr ?? ''}`.trim());
        return;
    }
    t.same(report.failed, {}, 'no runtime file needs a module outside the production dependencies');
    t.same(report.outside, [], 'nothing was loaded from outside the installation');
    t.ok(report.loaded.includes('build/src/extension.js'), 'build/src/extension.js loads');
    t.ok(report.extensionExport.length > 0, 'and exports something');
    t.equal(report.mainExport, 'function', 'build/src/main.js exports the adapter factory without starting it');
    t.ok(report.loaded.length > 100, `${report.loaded.length} files loaded`);
});

t.test('the adapter package names no js-controller; the dev workspace holds it for npm start and tests', async t => {
    const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8'));
    for (const field of ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies']) {
        t.notOk(pkg[field]?.['iobroker.js-controller'], `not in ${field}`);
    }
    const dev = JSON.parse(readFileSync(join(PROJECT_ROOT, 'dev', 'package.json'), 'utf8'));
    t.ok(pkg.workspaces?.includes('dev'), 'dev/ is a workspace, installed by the same npm ci');
    t.ok(dev.private, 'the dev workspace is never published');
    t.match(dev.dependencies?.['iobroker.js-controller'], /^\d+\.\d+\.\d+$/, 'it pins js-controller');
    t.ok(existsSync(join(PROJECT_ROOT, 'node_modules', 'iobroker.js-controller', 'package.json')), 'npm ci installed it where adapter-core finds it');
});
