/*
 * Imported first by main.ts: loading js-controller's modules and ours grows V8's young generation past
 * its cap at once, and V8 keeps what it grew, so the bound starts before them. Only when main.js is the
 * process's entry: in compact mode js-controller requires it into its own process.
 */
import { join } from 'node:path';
import { boundYoungGeneration } from './young-generation';

if (require.main?.filename === join(__dirname, '..', 'main.js')) {
    boundYoungGeneration();
}
