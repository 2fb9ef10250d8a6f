'use strict';
// Runs tap test files side by side, each as a plain `node` process, and sums tap's own closing count
// of each ("# { total: N, pass: N, fail: N }"). Not tap's runner: that one starts every test process
// with its coverage recorder (an ESM loader thread every module load goes through), which costs about
// 0.7 s of CPU per file while coverage is off; on two cores that was a fifth of the test run.
const { spawn } = require('node:child_process');
const { readdirSync, statSync } = require('node:fs');
const { join, relative } = require('node:path');

/** Ends a detached child's whole process group (what it spawned too); nothing when it is gone already. */
function killGroup(pid) {
    try {
        process.kill(-pid, 'SIGKILL');
    } catch {
        // already gone
    }
}

/** Ends the group after `ms`; `timedOut` says whether it had to. `clear()` once the child closed. */
function groupDeadline(pid, ms) {
    const timer = setTimeout(() => {
        deadline.timedOut = true;
        killGroup(pid);
    }, ms);
    const deadline = { timedOut: false, clear: () => clearTimeout(timer) };
    return deadline;
}

/** Every `*.test.js` below `dir`, in name order. */
function findTestFiles(dir) {
    const found = [];
    for (const name of readdirSync(dir).sort()) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) {
            found.push(...findTestFiles(path));
        } else if (name.endsWith('.test.js')) {
            found.push(path);
        }
    }
    return found;
}

/** tap's closing count of one file, or undefined when it never got there. */
function closingCount(output) {
    const line = output.match(/^# \{ total: [^}]*\}$/gm)?.at(-1);
    if (!line) {
        return undefined;
    }
    const count = key => Number(new RegExp(`${key}: (\\d+)`).exec(line)?.[1] ?? 0);
    return { pass: count('pass'), fail: count('fail') };
}

/** The `not ok` lines of a file's output (at any depth, trimmed), at most `max` of them. */
function failedAssertions(output, max = 5) {
    return (output.match(/^\s*not ok \d+ - .*$/gm) ?? []).slice(0, max).map(line => line.trim());
}

/**
 * Lines naming each failed file, its problem and its first failed assertions: printed again at the very
 * end of a run, where a CI log cut to its tail still shows what failed.
 */
function failureSummary(failed) {
    return failed.flatMap(({ file, problem, notOk }) => [`# failed: ${file}${problem ? ` (${problem})` : ''}`, ...notOk.map(line => `#   ${line}`)]);
}

/** Why a file failed beyond its own assertions, or '' (a silent end with 0 is no pass: nothing was counted). */
function problemOf({ timedOut, timeoutMs, code, counted }) {
    if (timedOut) {
        return `killed after ${timeoutMs / 1000} s`;
    }
    if (code !== 0 && !counted?.fail) {
        return `exit code ${code} without a failed assertion`;
    }
    return counted ? '' : "ended without tap's closing count";
}

/** One file in its own process group (a timeout ends what it started too); resolves with its counts. */
function runFile(root, file, { preload, timeoutMs }) {
    return new Promise(resolve => {
        const started = Date.now();
        const child = spawn(process.execPath, ['--enable-source-maps', '--require', preload, file], {
            cwd: root,
            // tap's own limit per test (30 s when run alone) is the file's limit here, as with tap's runner
            env: { ...process.env, TAP_TIMEOUT: String(timeoutMs / 1000) },
            stdio: ['ignore', 'pipe', 'pipe'],
            detached: true,
        });
        let output = '';
        child.stdout.on('data', chunk => (output += chunk));
        child.stderr.on('data', chunk => (output += chunk));
        const deadline = groupDeadline(child.pid, timeoutMs);
        child.on('close', code => {
            deadline.clear();
            // whatever the file started and left behind (a failed teardown) goes with it
            killGroup(child.pid);
            const closed = closingCount(output);
            const counts = closed ?? { pass: 0, fail: 0 };
            const problem = problemOf({ timedOut: deadline.timedOut, timeoutMs, code, counted: closed });
            if (problem) {
                counts.fail += 1;
            }
            resolve({ file: relative(root, file), output, problem, notOk: failedAssertions(output), ms: Date.now() - started, ...counts });
        });
    });
}

/**
 * Runs `files` (all of build/test when empty; those matching `first` first), `jobs` at a time. Each file's output is printed whole
 * when it ends to `out`, followed by a line `ok|not ok N - file # time=...`, as tap's runner does.
 * Resolves with the counts and `failed`: each failed file with its problem and first `not ok` lines.
 */
async function runTestFiles(root, files, { jobs = 4, timeoutMs = 180_000, first = [], out = process.stdout } = {}) {
    const found = files.length ? files.map(file => join(root, file)) : findTestFiles(join(root, 'build', 'test'));
    const rank = file => {
        const at = first.findIndex(name => file.includes(`/build/test/${name}`));
        return at === -1 ? first.length : at;
    };
    const list = found.map((file, index) => ({ file, index })).sort((a, b) => rank(a.file) - rank(b.file) || a.index - b.index).map(entry => entry.file);
    const preload = join(root, 'build', 'test', 'support', 'bare-children.js');
    let next = 0;
    let printed = 0;
    const totals = { pass: 0, fail: 0 };
    const failed = [];
    const times = [];
    const worker = async () => {
        while (next < list.length) {
            const result = await runFile(root, list[next++], { preload, timeoutMs });
            times.push({ name: result.file, ms: result.ms });
            totals.pass += result.pass;
            totals.fail += result.fail;
            const ok = result.fail === 0;
            if (!ok) {
                failed.push({ file: result.file, problem: result.problem, notOk: result.notOk });
            }
            out.write(`# Subtest: ${result.file}\n${result.output.replace(/^/gm, '    ')}\n`);
            if (result.problem) {
                out.write(`    # ${result.problem}\n`);
            }
            out.write(`${ok ? 'ok' : 'not ok'} ${++printed} - ${result.file} # time=${result.ms}ms\n\n`);
        }
    };
    await Promise.all(Array.from({ length: Math.min(jobs, list.length) }, worker));
    out.write(`1..${printed}\n# { total: ${totals.pass + totals.fail}, pass: ${totals.pass}, fail: ${totals.fail} }\n`);
    return { ...totals, failed, times, ok: totals.fail === 0 };
}

/** The `count` slowest of `times` ({name, ms}), one line each, so the suite's time stays in sight. */
function slowestSummary(times, count = 10) {
    const slowest = [...times].sort((a, b) => b.ms - a.ms).slice(0, count);
    return slowest.length ? [`# the ${slowest.length} slowest:`, ...slowest.map(({ name, ms }) => `#   ${(ms / 1000).toFixed(1).padStart(6)} s  ${name}`)] : [];
}

module.exports = { runTestFiles, groupDeadline, failureSummary, slowestSummary };
