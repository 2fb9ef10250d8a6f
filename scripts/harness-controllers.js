'use strict';
// The js-controller versions the @iobroker/testing harness runs against: the lowest io-package.json
// declares and the one of the dev workspace (the latest). The harness installs js-controller itself,
// where our package.json `overrides` do not reach: a version that needs one (7.2.3 names a
// @iobroker/plugin-sentry range the registry lacks) is handed over as a repacked tarball.
const { execFileSync } = require('node:child_process');
const { existsSync, mkdirSync, readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { overridesKey } = require('./cache-key');

const root = join(__dirname, '..');
const readJson = file => JSON.parse(readFileSync(file, 'utf8'));

/** `>=6.0.11` of io-package.json's js-controller dependency → `6.0.11`. */
function lowestDeclared() {
    const dependencies = readJson(join(root, 'io-package.json')).common.dependencies ?? [];
    const range = dependencies.map(entry => entry['js-controller']).find(Boolean);
    const version = /^>=\s*(\d+\.\d+\.\d+)$/.exec(range ?? '')?.[1];
    if (!version) {
        throw new Error(`io-package.json declares no js-controller floor like ">=6.0.11" (found ${JSON.stringify(range)})`);
    }
    return version;
}

/** The dev workspace's js-controller, the one `npm start` and the tap tests run on. */
function workspaceVersion() {
    return readJson(join(root, 'dev', 'package.json')).dependencies['iobroker.js-controller'];
}

/**
 * What the harness gets as CONTROLLER_VERSION: the version itself, or, where our package.json
 * overrides one of its dependencies, a `file:` tarball of it with those overrides written in.
 */
function installable(version, cacheDir) {
    const overrides = readJson(join(root, 'package.json')).overrides ?? {};
    // named by the overrides too: a pack made under other overrides is never taken
    const packDir = join(cacheDir, `js-controller-${version}-${overridesKey()}`);
    const repacked = join(packDir, 'repacked.tgz');
    // the answer of an earlier run: packing and asking the registry again would give the same
    const asPublished = join(packDir, 'as-published');
    if (existsSync(repacked)) {
        return `file:${repacked}`;
    }
    if (existsSync(asPublished)) {
        return version;
    }
    mkdirSync(packDir, { recursive: true });
    const npm = (...args) => execFileSync('npm', args, { cwd: packDir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const tarball = npm('pack', `iobroker.js-controller@${version}`, '--silent').trim().split('\n').at(-1);
    execFileSync('tar', ['xzf', tarball], { cwd: packDir });
    const manifestFile = join(packDir, 'package', 'package.json');
    const manifest = readJson(manifestFile);
    // only where the registry has nothing in the declared range: elsewhere the version keeps its own
    const unmet = name => {
        try {
            return !npm('view', `${name}@${manifest.dependencies[name]}`, 'version', '--json').trim();
        } catch {
            return true; // npm answers E404 for a range without a version
        }
    };
    const touched = Object.keys(overrides).filter(name => manifest.dependencies?.[name] && unmet(name));
    if (!touched.length) {
        writeFileSync(asPublished, '');
        return version;
    }
    for (const name of touched) {
        manifest.dependencies[name] = overrides[name];
    }
    writeFileSync(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
    execFileSync('tar', ['czf', repacked, 'package'], { cwd: packDir });
    return `file:${repacked}`;
}

module.exports = { installable, lowestDeclared, workspaceVersion };
