/*
 * Rules of the source tree, read from the TypeScript sources: no import circles (type imports
 * included: they couple files as much as value imports), and nothing outside src/storage/ reaches
 * into the members of objects other packages own.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import t from 'tap';

const ROOT = join(__dirname, '..', '..', '..');

function sources(dir: string): string[] {
    return readdirSync(join(ROOT, dir)).flatMap(name => {
        const path = join(dir, name);
        return statSync(join(ROOT, path)).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
    });
}

const files = [...sources('src'), ...sources('commands')];
const text = new Map(files.map(f => [f, readFileSync(join(ROOT, f), 'utf8')]));

function importsOf(file: string): string[] {
    const found: string[] = [];
    for (const match of text.get(file)!.matchAll(/(?:import|export)[^'";]*?from\s+'(\.[^']+)'/g)) {
        const target = normalize(join(dirname(file), match[1]));
        const hit = [`${target}.ts`, join(target, 'index.ts')].find(candidate => text.has(candidate));
        if (hit) {
            found.push(hit);
        }
    }
    return found;
}

/** Strongly connected groups of more than one file (Tarjan). */
function circles(graph: Map<string, string[]>): string[][] {
    let counter = 0;
    const index = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const onStack = new Set<string>();
    const groups: string[][] = [];
    const visit = (v: string): void => {
        index.set(v, counter);
        low.set(v, counter++);
        stack.push(v);
        onStack.add(v);
        for (const w of graph.get(v) ?? []) {
            if (!index.has(w)) {
                visit(w);
                low.set(v, Math.min(low.get(v)!, low.get(w)!));
            } else if (onStack.has(w)) {
                low.set(v, Math.min(low.get(v)!, index.get(w)!));
            }
        }
        if (low.get(v) === index.get(v)) {
            const group: string[] = [];
            let w: string;
            do {
                w = stack.pop()!;
                onStack.delete(w);
                group.push(w);
            } while (w !== v);
            if (group.length > 1) {
                groups.push(group.sort());
            }
        }
    };
    for (const v of graph.keys()) {
        if (!index.has(v)) {
            visit(v);
        }
    }
    return groups;
}

t.test('the circle finder finds a circle (so its empty answer below means something)', async t => {
    const graph = new Map([
        ['a', ['b']],
        ['b', ['c']],
        ['c', ['a']],
        ['d', ['a']],
    ]);
    t.same(circles(graph), [['a', 'b', 'c']]);
});

t.test('no import circles in src/ and commands/', async t => {
    t.ok(files.length > 100, `${files.length} files read`);
    const graph = new Map(files.map(f => [f, importsOf(f)]));
    t.ok(graph.get(join('src', 'app', 'app.ts'))!.length > 5, 'imports are found');
    t.same(circles(graph), []);
});

t.test('handlers get the services they need, not the app: request-context does not import app-services', async t => {
    t.notMatch(text.get(join('src', 'context', 'request-context.ts'))!, /app-services/);
});

t.test('outside src/storage/ nothing is patched: no defineProperty, no method assigned on the adapter or its clients', async t => {
    const patching = /Object\.defineProperty\s*\(|\b(adapter|web|webServer|objects|states|client)\s*\.\s*[A-Za-z_$][\w$]*\s*=[^=>]/;
    const offenders = files.filter(f => !f.startsWith(join('src', 'storage') + '/') && patching.test(text.get(f)!)).map(f => relative(ROOT, join(ROOT, f)));
    t.same(offenders, []);
    t.match(text.get(join('src', 'storage', 'link-state.ts'))!, patching, 'the rule sees the one isolated access (it can fail)');
});

t.test("the running adapter's timers are js-controller's: no global setTimeout or setInterval in src/ and commands/", async t => {
    // the repository checker's rule: js-controller clears the adapter's own timers when the instance stops
    const bare = /(?<![.\w])set(Timeout|Interval)\s*\(/;
    const offenders = files.filter(f => bare.test(text.get(f)!.replace(/\/\/.*$|\/\*[\s\S]*?\*\//gm, '')));
    t.same(offenders, []);
    t.match('const timer = setTimeout(done, 10);', bare, 'the rule sees a global timer (it can fail)');
    t.notMatch('this.timers.setTimeout(done, 10);', bare);
});
