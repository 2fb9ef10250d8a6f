/*
 * Preloaded (`node --require`) into adapter processes that tests spawn: when the test process dies
 * without its teardown, the stdin pipe closes and the adapter goes too, instead of living on with
 * broken stdout pipes and a vanished database.
 */
process.stdin.on('end', () => process.exit(0));
process.stdin.on('error', () => process.exit(0));
process.stdin.resume();
