#!/usr/bin/env node
// `npm test`: build, seed the test DB snapshot once, run every tap test file (scripts/run-test-files.js)
// and beside them the @iobroker/testing harness against the lowest js-controller io-package.json
// declares and the latest (scripts/harness-controllers.js), and end with "N passed, N failed" over all.
// With file arguments only those test files run; `--unit` runs build/test/unit only, `--harness` only
// the harness (HARNESS_CONTROLLERS=6.0.11,7.2.3 picks the js-controller versions).
'use strict';
const { execFileSync, spawn } = require('node:child_process');
const { mkdirSync, readdirSync, readFileSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { failureSummary, groupDeadline, runTestFiles, slowestSummary } = require('./run-test-files');
const { installable, lowestDeclared, workspaceVersion } = require('./harness-controllers');
const { overridesKey } = require('./cache-key');

const STARTED = Date.now();
const root = join(__dirname, '..');
const args = process.argv.slice(2);
const harnessOnly = args.includes('--harness');
const unitOnly = args.includes('--unit');
const tapArgs = args.filter(arg => arg !== '--harness' && arg !== '--unit');
const runHarnessToo = harnessOnly || (tapArgs.length === 0 && !unitOnly);
// a cold first run (js-controller install) takes about 2.5 minutes; more means something hangs
const HARNESS_LIMIT_MS = 15 * 60_000;

try {
    execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', join(root, 'tsconfig.json')], { stdio: 'inherit' });
    if (!harnessOnly) {
        execFileSync(process.execPath, ['-e', "require('./build/test/support/seed.js').ensureSeed().then(() => process.exit(0), e => { console.error(e); process.exit(1); })"], {
            cwd: root,
            stdio: 'inherit',
        });
    }
} catch {
    console.log('build or test setup failed');
    console.log('0 passed, 1 failed');
    process.exit(1);
}

// the longest files start first, so none of them is left running alone at the end
const LONGEST_FIRST = ['upgrade', 'launcher-first-start', 'docs-page', 'real-admin', 'orphan', 'defects', 'multi/cluster-hooks', 'auth/matrix', 'multi/cluster-redis', 'fuzz', 'launcher.test'];

/** Every tap test file (or the ones named), five at a time (several mostly wait), each in a plain node process. */
function runTap() {
    const unitDir = join('build', 'test', 'unit');
    const files = tapArgs.length ? tapArgs : unitOnly ? readdirSync(join(root, unitDir)).filter(name => name.endsWith('.test.js')).map(name => join(unitDir, name)) : undefined;
    // a bound for a hung file: the browser, upgrade and first-start files took up to 280 s on two cores busy with more
    return runTestFiles(root, files ?? [], { jobs: Number(process.env.TEST_JOBS) || 5, timeoutMs: 480_000, first: files ? [] : LONGEST_FIRST });
}

/**
 * Runs test/harness/integration.js with mocha's JSON reporter written to a file. A run that leaves no
 * report, or exits non-zero without a reported failure, counts as one failure: it never passes silently.
 * `controllerVersion` is what installable() gave for `controller`, or the error it threw.
 */
function runHarness(controller, controllerVersion) {
    const report = join(tmpdir(), `rest-api-harness-${process.pid}.json`);
    rmSync(report, { force: true });
    const label = `harness (js-controller ${controller}, Node ${process.version})`;
    const started = Date.now();
    // one test directory per Node and js-controller version: the harness keeps its install there
    // (native modules are built for one Node) and would wipe it whenever the version changes; the
    // overrides change which js-controller package it installs
    const workDir = join(tmpdir(), 'rest-api-harness', `node-${process.version}-controller-${controller}-${overridesKey()}`);
    if (controllerVersion instanceof Error) {
        console.log(`# ${label}: cannot prepare js-controller ${controller}: ${controllerVersion.message}; counted as a failure`);
        return Promise.resolve({ pass: 0, fail: 1, ok: false });
    }
    mkdirSync(workDir, { recursive: true });
    let mochaBin;
    try {
        mochaBin = require.resolve('mocha/bin/mocha.js');
    } catch {
        console.log(`# ${label}: mocha is not installed; counted as a failure`);
        return Promise.resolve({ pass: 0, fail: 1, ok: false });
    }
    return new Promise(resolve => {
        const mocha = spawn(
            process.execPath,
            [mochaBin, '--exit', '--reporter', 'json', '--reporter-option', `output=${report}`, join('test', 'harness', 'integration.js')],
            // its own process group, so a hang can be ended together with the adapter it spawned
            { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], detached: true, env: { ...process.env, CONTROLLER_VERSION: controllerVersion, TMPDIR: workDir } },
        );
        // held until the run ends, as the tap files' output is, so the two never interleave
        let output = '';
        mocha.stdout.on('data', chunk => (output += chunk));
        mocha.stderr.on('data', chunk => (output += chunk));
        const deadline = groupDeadline(mocha.pid, HARNESS_LIMIT_MS);
        mocha.on('error', err => console.log(`# ${label}: cannot start mocha: ${err.message}`));
        mocha.on('close', code => {
            deadline.clear();
            process.stdout.write(`\n# @iobroker/testing ${label}: test/harness/integration.js\n${output}`);
            let result;
            try {
                result = JSON.parse(readFileSync(report, 'utf8'));
            } catch {
                result = null;
            }
            rmSync(report, { force: true });
            const pass = result?.stats?.passes ?? 0;
            let fail = result?.stats?.failures ?? 0;
            for (const test of result?.failures ?? []) {
                console.log(`# ${label}: not ok ${test.fullTitle}: ${String(test.err?.message ?? '').split('\n')[0]}`);
            }
            for (const test of result?.pending ?? []) {
                console.log(`# ${label}: skipped ${test.fullTitle}`);
            }
            if (deadline.timedOut) {
                console.log(`# ${label}: killed after ${HARNESS_LIMIT_MS / 60_000} minutes`);
            }
            if (!result || deadline.timedOut || (code !== 0 && fail === 0)) {
                console.log(`# ${label}: did not complete (exit code ${code}); counted as a failure`);
                fail += 1;
            }
            console.log(`# ${label}: ${pass} passed, ${fail} failed, ${result?.stats?.pending ?? 0} skipped in ${Math.round((Date.now() - started) / 1000)} s`);
            resolve({ pass, fail, ok: fail === 0, times: [{ name: label, ms: Date.now() - started }] });
        });
    });
}

/** The harness against each js-controller version in turn (they share fixed ports). */
async function runHarnesses() {
    const versions = process.env.HARNESS_CONTROLLERS?.split(',').filter(Boolean) ?? [lowestDeclared(), workspaceVersion()];
    // packed now, before the tap files start: npm pack and view block this process for seconds
    const prepared = versions.map(version => {
        try {
            return installable(version, join(tmpdir(), 'rest-api-harness'));
        } catch (err) {
            return err;
        }
    });
    const results = [];
    for (const [index, version] of versions.entries()) {
        results.push(await runHarness(version, prepared[index]));
    }
    return results;
}

(async () => {
    if (!runHarnessToo) {
        console.log('# harness: not run, because file arguments were given (`--harness` runs it alone)');
    }
    // side by side: the harness' two runs (a minute each, half of it npm installing js-controller)
    // mostly wait, as most tap files do; the tap files' limit (300 s) leaves room for the load
    const harnessRuns = runHarnessToo ? runHarnesses() : Promise.resolve([]);
    const [harnesses, tap] = await Promise.all([harnessRuns, harnessOnly ? undefined : runTap()]);
    const results = [...(tap ? [tap] : []), ...harnesses];
    for (const line of [...slowestSummary(results.flatMap(r => r.times ?? [])), ...failureSummary(results.flatMap(r => r.failed ?? []))]) {
        console.log(line);
    }
    console.log(`# npm test took ${Math.round((Date.now() - STARTED) / 1000)} s`);
    const pass = results.reduce((sum, r) => sum + r.pass, 0);
    const fail = results.reduce((sum, r) => sum + r.fail, 0);
    console.log(`${pass} passed, ${fail} failed`);
    process.exit(results.every(r => r.ok) ? 0 : 1);
})();
