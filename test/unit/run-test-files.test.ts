/*
 * The test runner behind `npm test` (scripts/run-test-files.js): what it counts for files that pass,
 * fail, crash, end silently or hang, and the summary that names them at the end of a CI log.
 */
import t from 'tap';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { PROJECT_ROOT } from '../../scripts/embedded-storage';

interface FailedFile {
    file: string;
    problem: string;
    notOk: string[];
}
interface Runner {
    runTestFiles(
        root: string,
        files: string[],
        options: object,
    ): Promise<{ pass: number; fail: number; ok: boolean; failed: FailedFile[]; times: Array<{ name: string; ms: number }> }>;
    failureSummary(failed: FailedFile[]): string[];
    slowestSummary(times: Array<{ name: string; ms: number }>, count?: number): string[];
}
// plain JavaScript beside the sources, not built: loaded from the project folder
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { runTestFiles, failureSummary, slowestSummary } = require(join(PROJECT_ROOT, 'scripts', 'run-test-files.js')) as Runner;

/** Files that print what tap prints at their end, or not: the runner reads only that text and the exit code. */
const FILES: Record<string, string> = {
    'passes.test.js': "console.log('ok 1 - a\\nok 2 - b\\n# { total: 2, pass: 2 }');",
    'fails.test.js':
        "console.log('    not ok 1 - the value is 3\\nok 2 - b\\n# { total: 2, pass: 1, fail: 1 }'); process.exitCode = 1;",
    'crashes.test.js': "throw new Error('before any test');",
    'silent.test.js': '// ends with 0 and prints nothing',
    'hangs.test.js': 'setInterval(() => undefined, 1000);',
};

void t.test(
    'every file that did not pass is counted once and named with its problem and failed assertions',
    async t => {
        const dir = mkdtempSync(join(tmpdir(), 'rest-api-runner-'));
        t.teardown(() => rmSync(dir, { recursive: true, force: true }));
        for (const [name, text] of Object.entries(FILES)) {
            writeFileSync(join(dir, name), text);
        }
        const written: string[] = [];
        const out = { write: (text: string) => written.push(text) };
        const files = Object.keys(FILES).map(name => relative(PROJECT_ROOT, join(dir, name)));
        const result = await runTestFiles(PROJECT_ROOT, files, { jobs: 5, timeoutMs: 3000, out });

        t.equal(result.pass, 3, 'the passed assertions of the files that printed their count');
        t.equal(result.fail, 4, 'one for the failed assertion, one each for the crash, the silent end and the hang');
        t.equal(result.ok, false);
        const byName = Object.fromEntries(result.failed.map(f => [f.file.split('/').at(-1), f]));
        t.same(Object.keys(byName).sort(), ['crashes.test.js', 'fails.test.js', 'hangs.test.js', 'silent.test.js']);
        t.same(byName['fails.test.js'], { file: files[1], problem: '', notOk: ['not ok 1 - the value is 3'] });
        t.match(byName['crashes.test.js'].problem, /^exit code 1 without a failed assertion$/);
        t.equal(byName['silent.test.js'].problem, "ended without tap's closing count");
        t.equal(byName['hangs.test.js'].problem, 'killed after 3 s');

        const log = written.join('');
        t.match(log, /^not ok \d+ - .*silent\.test\.js/m, 'the silent file is "not ok" in the log too');
        t.match(log, /^ok \d+ - .*passes\.test\.js/m);
        t.match(log, /^# \{ total: 7, pass: 3, fail: 4 \}$/m);

        const summary = failureSummary(result.failed);
        t.ok(summary.includes(`# failed: ${files[1]}`), summary.join('\n'));
        t.ok(summary.includes('#   not ok 1 - the value is 3'));
        t.ok(summary.includes(`# failed: ${files[4]} (killed after 3 s)`));
        t.equal(summary.filter(line => line.startsWith('# failed: ')).length, 4);

        t.equal(result.times.length, 5, 'a time for every file');
        const slowest = slowestSummary(result.times, 2);
        t.equal(slowest[0], '# the 2 slowest:');
        t.match(slowest[1], /^# +3\.\d s  .*hangs\.test\.js$/, 'the hung file first, with its time');
        t.equal(slowest.length, 3, 'only as many as asked');
    },
);
