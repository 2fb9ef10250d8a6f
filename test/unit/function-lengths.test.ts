/*
 * No function in src/ or commands/ has more than 80 lines of its own (scripts/function-lengths.js):
 * the lines of the functions nested in it are counted apart, so a long function is split into named
 * steps rather than into closures that hide in it.
 */
import t from 'tap';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../scripts/embedded-storage';

interface Measured {
    file: string;
    name: string;
    line: number;
    own: number;
}
interface Checker {
    LIMIT: number;
    measure(file: string): Measured[];
    longFunctions(paths?: string[], limit?: number): Measured[];
}
// plain JavaScript beside the sources, not built: loaded from the project folder
// eslint-disable-next-line @typescript-eslint/no-require-imports
const checker = require(join(PROJECT_ROOT, 'scripts', 'function-lengths.js')) as Checker;

const body = (lines: number): string => Array.from({ length: lines }, (_, i) => `    const v${i} = ${i};`).join('\n');

void t.test('own lines: a function counts its lines less those of the functions nested in it', async t => {
    const dir = mkdtempSync(join(tmpdir(), 'function-lengths-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'sample.ts');
    writeFileSync(
        file,
        [
            'export function outer(): void {',
            body(10),
            '    const inner = (): void => {',
            body(90),
            '    };',
            '    class Holder {',
            '        method(): void {',
            body(3),
            '        }',
            '    }',
            '}',
        ].join('\n'),
    );
    const byName = new Map(checker.measure(file).map(f => [f.name, f]));
    // outer: 1 + 10 + 2 (class lines) + 1 closing; inner 92 lines and method 5 lines counted apart
    t.equal(byName.get('outer')?.own, 14);
    t.equal(byName.get('inner')?.own, 92);
    t.equal(byName.get('Holder.method')?.own, 5);
    t.same(
        checker.longFunctions([dir]).map(f => f.name),
        ['inner'],
        'only the nested arrow function is over the limit',
    );
});

void t.test(`no function in src/ and commands/ has more than ${checker.LIMIT} lines of its own`, async t => {
    const long = checker.longFunctions(['src', 'commands']);
    t.same(
        long.map(f => `${f.file}:${f.line} ${f.name} (${f.own} lines)`),
        [],
        'split these into named steps',
    );
});
