#!/usr/bin/env node
// `npm test`: build, seed the test DB snapshot once, run every tap test, end with "N passed, N failed".
'use strict';
const { execFileSync, spawn } = require('node:child_process');
const { join } = require('node:path');

const root = join(__dirname, '..');
try {
    execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', join(root, 'tsconfig.json')], { stdio: 'inherit' });
    execFileSync(process.execPath, ['-e', "require('./build/test/support/seed.js').ensureSeed().then(() => process.exit(0), e => { console.error(e); process.exit(1); })"], {
        cwd: root,
        stdio: 'inherit',
    });
} catch {
    console.log('build or test setup failed');
    console.log('0 passed, 1 failed');
    process.exit(1);
}

const tap = spawn(process.execPath, [join(root, 'node_modules', 'tap', 'dist', 'esm', 'run.mjs'), ...process.argv.slice(2)], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
let tail = '';
tap.stdout.on('data', chunk => {
    process.stdout.write(chunk);
    tail = (tail + chunk).slice(-4000);
});
tap.on('exit', code => {
    // tap's closing summary: "# { total: 12, pass: 11, fail: 1 }"
    const summary = /# \{ total: [^}]*\}/.exec(tail)?.[0];
    const count = key => Number(new RegExp(`${key}: (\\d+)`).exec(summary ?? '')?.[1] ?? 0);
    const pass = count('pass');
    const fail = summary ? count('fail') : 1;
    console.log(`${pass} passed, ${fail} failed`);
    process.exit(code === 0 && summary ? 0 : code || 1);
});
