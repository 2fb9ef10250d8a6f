/*
 * A typed client that works: openapi-typescript generates the types from the document the server
 * serves, examples/typed-client/client.ts (openapi-fetch) compiles against them under strict with no
 * casts and no `any`, and runs against the real server: it reads and writes a state (and reads it
 * again with If-None-Match: 304), calls getState
 * through /v1/command, reads an object and a listing, and gets a typed error body on 404.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import ts from 'typescript';
import { PROJECT_ROOT } from '../scripts/embedded-storage';
import { createState } from './support/iobroker';
import { startInProcess, type InProcessApp, type InProcessHost } from './support/in-process';
// its CommonJS build exports the generator as `default` next to the helpers
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { default: openapiTS, astToString } = require('openapi-typescript') as {
    default: (doc: object) => Promise<import('typescript').Node[]>;
    astToString: (ast: import('typescript').Node[]) => string;
};

const EXAMPLE = join(PROJECT_ROOT, 'examples', 'typed-client', 'client.ts');
const STATE = '0_userdata.0.typedClient';

let host: InProcessHost;
let app: InProcessApp;
// inside the project, so the client finds openapi-fetch in its node_modules
const dir = mkdtempSync(join(PROJECT_ROOT, 'build', 'typed-client-'));
t.before(async () => {
    host = await startInProcess();
    app = await host.app({ checkInterval: 0 });
    await createState(host.storage, STATE, { type: 'number', name: 'Typed client' }, 1);
});
t.teardown(async () => {
    await app?.close();
    await host?.stop();
    rmSync(dir, { recursive: true, force: true });
});

function compile(files: string[]): string[] {
    const program = ts.createProgram(files, {
        strict: true,
        noImplicitAny: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.CommonJS,
        moduleResolution: ts.ModuleResolutionKind.Node10,
        esModuleInterop: true,
        skipLibCheck: true,
        types: ['node'],
        outDir: dir,
    });
    const emitted = program.emit();
    return [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics].map(d => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

t.test('types from the served document; the example compiles strictly and runs against the server', async t => {
    const doc = (await app.request('/api-docs/openapi.json')).json;
    writeFileSync(join(dir, 'api.d.ts'), astToString(await openapiTS(doc)));
    copyFileSync(EXAMPLE, join(dir, 'client.ts'));
    const source = readFileSync(EXAMPLE, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
    t.notMatch(source, /\bany\b/, 'no any');
    t.notMatch(source, /\bas\s+[A-Za-z{[(]|<[A-Za-z]+>\s*\(?[a-z]/, 'no casts');
    t.same(compile([join(dir, 'client.ts')]), [], 'compiles under strict');
    // not execFileSync: the databases run in this process and must keep answering meanwhile
    const { stdout } = await promisify(execFile)(process.execPath, [join(dir, 'client.js'), await app.serve(), STATE], { encoding: 'utf8', timeout: 30_000 });
    const summary = JSON.parse(stdout.trim());
    t.same(summary, {
        written: 42,
        val: 42,
        ack: true,
        unchanged: 304,
        commandVal: 42,
        objectType: 'state',
        objectName: 'Typed client',
        listed: summary.listed,
        missingStatus: 404,
        missingError: 'object not found',
    });
    t.ok(summary.listed >= 1, `${summary.listed} states listed`);
});

t.test('the types catch a misuse: reading a field the answer does not have fails to compile', async t => {
    writeFileSync(
        join(dir, 'misuse.ts'),
        `import createClient from 'openapi-fetch';
import type { paths } from './api';
const client = createClient<paths>({ baseUrl: 'http://127.0.0.1:1' });
export async function misuse(): Promise<number> {
    const command = await client.GET('/v1/command/getState', { params: { query: { id: 'x' } } });
    return command.data?.results.length ?? 0;
}
`,
    );
    const problems = compile([join(dir, 'misuse.ts')]);
    t.match(problems.join('\n'), /results/, 'getState answers result, not results');
});
