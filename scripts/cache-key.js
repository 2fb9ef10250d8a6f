'use strict';
// Names for the caches the tests and the bench keep outside the clone (temp folder, ~/.cache). A cache
// is named by everything that changes its content, so a stale one is never found, only a new one made.
const { createHash } = require('node:crypto');
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');

/** A short hash of the given parts. */
function cacheKey(...parts) {
    const hash = createHash('sha256');
    for (const part of parts) {
        hash.update(String(part)).update('\0');
    }
    return hash.digest('hex').slice(0, 12);
}

/** The lockfile: which packages, in which versions, the dev workspace's adapters included, are installed. */
function lockfileKey() {
    return cacheKey(readFileSync(join(root, 'package-lock.json')));
}

/** Our package.json's overrides: they change what a js-controller or release install from npm gets. */
function overridesKey() {
    return cacheKey(JSON.stringify(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).overrides ?? {}));
}

module.exports = { cacheKey, lockfileKey, overridesKey };
