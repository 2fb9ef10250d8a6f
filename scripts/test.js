#!/usr/bin/env node
// `npm test`: build, seed the test DB snapshot once, run every tap test file (scripts/run-test-files.js)
// and, beside them, the @iobroker/testing harness, and end with "N passed, N failed" over both.
// With file arguments only those test files run; `--harness` runs only the harness.
'use strict';
const { execFileSync, spawn } = require('node:child_process');
const { readFileSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { groupDeadline, runTestFiles } = require('./run-test-files');

const STARTED = Date.now();
const root = join(__dirname, '..');
const args = process.argv.slice(2);
const harnessOnly = args.includes('--harness');
const tapArgs = args.filter(arg => arg !== '--harness');
const runHarnessToo = harnessOnly || tapArgs.length === 0;
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
const LONGEST_FIRST = ['launcher-first-start', 'docs-page', 'defects', 'multi/cluster-hooks', 'auth/matrix', 'multi/cluster-redis', 'fuzz', 'launcher.test'];

/** Every tap test file (or the ones named), five at a time (several mostly wait), each in a plain node process. */
function runTap() {
    const files = tapArgs.length ? tapArgs : undefined;
    return runTestFiles(root, files ?? [], { jobs: Number(process.env.TEST_JOBS) || 5, timeoutMs: 180_000, first: files ? [] : LONGEST_FIRST });
}

/**
 * Runs test/harness/integration.js with mocha's JSON reporter written to a file. A run that leaves no
 * report, or exits non-zero without a reported failure, counts as one failure: it never passes silently.
 */
function runHarness() {
    const report = join(tmpdir(), `rest-api-harness-${process.pid}.json`);
    rmSync(report, { force: true });
    console.log('\n# @iobroker/testing harness (test/harness/integration.js)');
    const started = Date.now();
    let mochaBin;
    try {
        mochaBin = require.resolve('mocha/bin/mocha.js');
    } catch {
        console.log('# harness: mocha is not installed; counted as a failure');
        return Promise.resolve({ pass: 0, fail: 1, ok: false });
    }
    return new Promise(resolve => {
        const mocha = spawn(
            process.execPath,
            [mochaBin, '--exit', '--reporter', 'json', '--reporter-option', `output=${report}`, join('test', 'harness', 'integration.js')],
            // its own process group, so a hang can be ended together with the adapter it spawned
            { cwd: root, stdio: ['ignore', 'inherit', 'inherit'], detached: true },
        );
        const deadline = groupDeadline(mocha.pid, HARNESS_LIMIT_MS);
        mocha.on('error', err => console.log(`# harness: cannot start mocha: ${err.message}`));
        mocha.on('close', code => {
            deadline.clear();
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
                console.log(`# harness: not ok ${test.fullTitle}: ${String(test.err?.message ?? '').split('\n')[0]}`);
            }
            for (const test of result?.pending ?? []) {
                console.log(`# harness: skipped ${test.fullTitle}`);
            }
            if (deadline.timedOut) {
                console.log(`# harness: killed after ${HARNESS_LIMIT_MS / 60_000} minutes`);
            }
            if (!result || deadline.timedOut || (code !== 0 && fail === 0)) {
                console.log(`# harness: did not complete (exit code ${code}); counted as a failure`);
                fail += 1;
            }
            console.log(`# harness: ${pass} passed, ${fail} failed, ${result?.stats?.pending ?? 0} skipped in ${Math.round((Date.now() - started) / 1000)} s`);
            resolve({ pass, fail, ok: fail === 0 });
        });
    });
}

(async () => {
    if (!runHarnessToo) {
        console.log('# harness: not run, because file arguments were given (`--harness` runs it alone)');
    }
    // side by side: the harness mostly waits for its adapter process, tap fills the cores meanwhile;
    // their ports cannot meet (the harness' are fixed below the range the tap fixtures pick from)
    const results = await Promise.all([harnessOnly ? undefined : runTap(), runHarnessToo ? runHarness() : undefined]).then(all => all.filter(Boolean));
    console.log(`# npm test took ${Math.round((Date.now() - STARTED) / 1000)} s`);
    const pass = results.reduce((sum, r) => sum + r.pass, 0);
    const fail = results.reduce((sum, r) => sum + r.fail, 0);
    console.log(`${pass} passed, ${fail} failed`);
    process.exit(results.every(r => r.ok) ? 0 : 1);
})();
