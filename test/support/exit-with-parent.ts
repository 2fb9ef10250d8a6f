/*
 * Preloaded (`node --require`) into adapter processes that tests spawn: when the test process dies
 * without its teardown, the adapter goes too (it is re-parented), instead of living on with broken
 * stdout pipes and a vanished database.
 */
const parent = process.ppid;
setInterval(() => {
    if (process.ppid !== parent) {
        process.exit(0);
    }
}, 500).unref();
