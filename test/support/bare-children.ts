/*
 * Preloaded into every tap test process (package.json, tap "node-arg"). tap hands its loaders to
 * child processes through NODE_OPTIONS; with coverage off they only cost each adapter, launcher or
 * example process a second of CPU and seconds of start-up, so children start without them.
 */
const options = (process.env.NODE_OPTIONS ?? '').split(/\s+/).filter(option => option && !option.includes('@tapjs/'));
if (options.length) {
    process.env.NODE_OPTIONS = options.join(' ');
} else {
    delete process.env.NODE_OPTIONS;
}
