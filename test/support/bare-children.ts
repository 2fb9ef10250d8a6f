/*
 * Preloaded into every test process (scripts/run-test-files.js; for `npx tap`, package.json's tap
 * "node-arg"). tap's runner hands its loaders to child processes through NODE_OPTIONS; with coverage
 * off they only cost each adapter, launcher or example process a second of CPU, so children start
 * without them.
 */
const options = (process.env.NODE_OPTIONS ?? '').split(/\s+/).filter(option => option && !option.includes('@tapjs/'));
if (options.length) {
    process.env.NODE_OPTIONS = options.join(' ');
} else {
    delete process.env.NODE_OPTIONS;
}
