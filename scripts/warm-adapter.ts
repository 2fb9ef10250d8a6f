/*
 * Loads the adapter's modules at once, but creates the adapter only when the launcher says so,
 * so module loading overlaps with `setup first` on a fresh data dir. The adapter then runs
 * exactly as in js-controller's compact mode, through the factory that main.js exports.
 */
import { join } from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const createAdapter: () => unknown = require(join(__dirname, '..', 'src', 'main.js'));

process.once('message', () => {
    // the channel stays open (closing it inside its own message handler crashes Node 20) but holds nothing up
    process.channel?.unref();
    createAdapter();
});
