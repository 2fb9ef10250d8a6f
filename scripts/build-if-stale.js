#!/usr/bin/env node
// Builds when a source is newer than the build (or there is none). `npm start` and `prepack` use it:
// packing while the tests run (the integration harness packs the adapter) must not rewrite the build
// under the test processes that are loading it.
'use strict';
const { execFileSync } = require('node:child_process');
const { existsSync, readdirSync, statSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const marker = join(root, 'build', 'src', 'main.js');

function newest(dir) {
    let time = 0;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        time = Math.max(time, entry.isDirectory() ? newest(path) : entry.name.endsWith('.ts') ? statSync(path).mtimeMs : 0);
    }
    return time;
}

function buildIfStale() {
    const sources = Math.max(...['src', 'commands', 'scripts'].map(d => newest(join(root, d))));
    if (!existsSync(marker) || statSync(marker).mtimeMs < sources) {
        console.log('[build] building ...');
        execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', join(root, 'tsconfig.json')], { stdio: 'inherit' });
    }
}

module.exports = { buildIfStale };

if (require.main === module) {
    buildIfStale();
}
