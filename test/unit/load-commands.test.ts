import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { COMMANDS_DIR, loadCommands } from '../../src/load-commands';
import { COMMANDS_PERMISSIONS } from '../../src/lib/permissions-table';

const VOCABULARY = new Set(Object.values(COMMANDS_PERMISSIONS).map(p => `${p.type}/${p.operation}`));

t.test('the commands folder loads and every command is complete', async t => {
    const registry = loadCommands();
    t.ok(registry.size >= 16);
    t.ok(Object.isFrozen(registry) || registry instanceof Map);
    const testSources = readdirSync(join(__dirname, '..', 'commands'))
        .filter(f => f.endsWith('.test.js'))
        .map(f => readFileSync(join(__dirname, '..', 'commands', f), 'utf8'))
        .join('\n');
    for (const [name, cmd] of registry) {
        t.ok(cmd.summary.length > 5, `${name} has a summary`);
        if (cmd.permission) {
            t.ok(VOCABULARY.has(`${cmd.permission.type}/${cmd.permission.operation}`), `${name} uses the socket-classes vocabulary`);
        }
        t.ok(testSources.includes(`/v1/command/${name}`) || testSources.includes(`'${name}'`), `${name} is exercised by a test in test/commands`);
    }
});

function folderWith(files: Record<string, string>): string {
    const dir = mkdtempSync(join(tmpdir(), 'commands-'));
    for (const [name, text] of Object.entries(files)) {
        writeFileSync(join(dir, name), text);
    }
    return dir;
}

const typebox = JSON.stringify(require.resolve('@sinclair/typebox'));
const valid = (name: string, extra = ''): string => `
const { Type } = require(${typebox});
exports.default = { name: '${name}', summary: 'A test command', params: Type.Object({ ${extra} }), permission: null,
  effect: 'read', envelope: 'result', handler: async () => 1 };`;

t.test('refuses to start on a malformed, misnamed or duplicate file', async t => {
    t.same([...loadCommands(folderWith({ 'ok.js': valid('ok') })).keys()], ['ok']);
    t.throws(() => loadCommands(folderWith({ 'bad.js': 'exports.default = { name: "bad" };' })), /Invalid command file bad\.js: .*handler/);
    t.throws(() => loadCommands(folderWith({ 'broken.js': 'this is not javascript' })), /Invalid command file broken\.js: cannot be loaded/);
    t.throws(() => loadCommands(folderWith({ 'wrongName.js': valid('other') })), /name "other" differs from the file name "wrongName"/);
    t.throws(() => loadCommands(folderWith({ 'getThing.js': valid('getThing'), 'GetThing.js': valid('GetThing') })), /duplicate command name/);
    t.throws(
        () => loadCommands(folderWith({ 'def.js': valid('def', "level: Type.String({ enum: ['a'], default: 5 })") })),
        /default of parameter "level" violates its own schema/,
    );
    t.throws(() => loadCommands(folderWith({ 'perm.js': valid('perm').replace('permission: null', "permission: { type: 'nope', operation: 'x' }") })), /permission/);
    t.same([...loadCommands(folderWith({ '_helper.js': 'throw new Error()', 'a.d.js': '' })).keys()], [], 'helpers are skipped');
});

t.test('the real folder holds no stray files', async t => {
    const stray = readdirSync(COMMANDS_DIR).filter(f => !f.endsWith('.js'));
    t.same(stray, []);
});
