/*
 * Child process of test/package.test.ts: requires every runtime file of an installed copy of the
 * package and prints one JSON line with what failed and which files came from outside the install.
 * Usage: node require-installed.js <install dir> <package dir>
 */
import { readdirSync, realpathSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

export interface RequireReport {
    loaded: string[];
    failed: Record<string, string>;
    /** files that were loaded from outside the install dir (e.g. the repo's own node_modules) */
    outside: string[];
    mainExport: string;
    extensionExport: string[];
}

function jsFiles(dir: string): string[] {
    return readdirSync(dir, { withFileTypes: true }).flatMap(entry => {
        const path = join(dir, entry.name);
        return entry.isDirectory() ? jsFiles(path) : entry.name.endsWith('.js') ? [path] : [];
    });
}

/** The message, and for a missing module the file that asked for it */
function describe(err: unknown, installDir: string): string {
    const message = String((err as Error)?.message ?? err).split('\n')[0];
    const by = (err as { requireStack?: string[] })?.requireStack?.[0];
    return by ? `${message} (required by ${relative(installDir, by)})` : message;
}

function main(): void {
    const installDir = realpathSync(process.argv[2]);
    const packageDir = realpathSync(process.argv[3]);
    // modules preloaded by a test runner (tap's --import hooks) are not the package's concern
    const preloaded = new Set(Object.keys(require.cache));
    const report: RequireReport = { loaded: [], failed: {}, outside: [], mainExport: 'not loaded', extensionExport: [] };
    const files = ['build/src', 'build/commands'].flatMap(dir => jsFiles(join(packageDir, dir)));
    for (const file of files) {
        const name = relative(packageDir, file);
        try {
            // main.js only exports a factory when it is not the entry point, so this starts nothing
            const exported = require(file);
            report.loaded.push(name);
            if (name === join('build', 'src', 'main.js')) {
                report.mainExport = typeof exported;
            }
            if (name === join('build', 'src', 'extension.js')) {
                report.extensionExport = Object.keys(exported);
            }
        } catch (err) {
            report.failed[name] = describe(err, installDir);
        }
    }
    report.outside = Object.keys(require.cache).filter(path => !preloaded.has(path) && !path.startsWith(installDir + sep));
    process.stdout.write(`${JSON.stringify(report)}\n`);
    // a module may have started a timer; the report is all we need
    process.exit(0);
}

if (require.main === module) {
    main();
}
