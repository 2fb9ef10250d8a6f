import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { COMMANDS_DIR, loadCommands } from '../../src/command-runtime/load-commands';

/** socket-classes' permission vocabulary (its COMMANDS_PERMISSIONS uses these pairs). */
const VOCABULARY = new Set(
    ['object/read', 'object/list', 'object/write', 'object/delete', 'state/read', 'state/list', 'state/write', 'state/delete', 'state/create']
        .concat(['users/create', 'users/write', 'users/delete', 'other/http', 'other/execute', 'other/sendto'])
        .concat(['file/read', 'file/list', 'file/create', 'file/write', 'file/delete']),
);

t.test('the commands folder loads and every command is complete', async t => {
    const registry = loadCommands();
    // every command file is registered under its file name, and nothing else is
    const files = readdirSync(COMMANDS_DIR)
        .filter(f => f.endsWith('.js') && !f.startsWith('_') && !f.endsWith('.d.js'))
        .map(f => f.slice(0, -3));
    const aliases = files.flatMap(name => registry.get(name)?.aliases ?? []);
    t.same([...registry.keys()].sort(), [...files, ...aliases].sort(), 'every file under its name, and its aliases');
    t.ok(aliases.includes('getForeignStates') && aliases.includes('deleteFolder'), 'the 4.0.2 synonyms are aliases, not copies');
    for (const alias of aliases) {
        const main = [...registry.values()].find(cmd => cmd.aliases?.includes(alias))!;
        t.equal(registry.get(alias)!.handler, main.handler, `${alias} runs ${main.name}'s handler`);
        t.match(registry.get(alias)!.summary, `Same as ${main.name}`);
    }
    t.ok(registry.size >= 60, `${registry.size} commands`);
    // a call of the command, not a mention: the catalogue test's name list does not count
    const testDir = join(__dirname, '..');
    const testSources = readdirSync(testDir, { recursive: true, encoding: 'utf8' })
        .filter(f => f.endsWith('.test.js') && !f.endsWith('catalogue.test.js'))
        .map(f => readFileSync(join(testDir, f), 'utf8'))
        .join('\n');
    const called = (name: string): boolean => new RegExp(`/v1/command/${name}(?![\\w])`).test(testSources);
    for (const [name, cmd] of registry) {
        t.ok(cmd.summary.length > 5, `${name} has a summary`);
        if (cmd.permission) {
            t.ok(VOCABULARY.has(`${cmd.permission.type}/${cmd.permission.operation}`), `${name} uses the socket-classes vocabulary`);
        }
        t.ok(called(name), `${name} is called by a test (/v1/command/${name})`);
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
  effect: 'read', envelope: 'result', result: Type.Number(), handler: async () => 1 };`;

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
    t.throws(() => loadCommands(folderWith({ 'nores.js': valid('nores').replace('result: Type.Number(), ', '') })), /Invalid command file nores\.js: result must be a TypeBox schema/);
    t.throws(() => loadCommands(folderWith({ 'perm.js': valid('perm').replace('permission: null', "permission: { type: 'nope', operation: 'x' }") })), /permission/);
    t.same([...loadCommands(folderWith({ 'main.js': valid('main').replace("name: 'main',", "name: 'main', aliases: ['other'],") })).keys()], ['main', 'other'], 'an alias is registered');
    t.throws(() => loadCommands(folderWith({ 'main.js': valid('main').replace("name: 'main',", "name: 'main', aliases: ['zeta'],"), 'zeta.js': valid('zeta') })), /duplicate command name "zeta"/);
    t.same([...loadCommands(folderWith({ '_helper.js': 'throw new Error()', 'a.d.js': '' })).keys()], [], 'helpers are skipped');
});

t.test('the real folder holds no stray files', async t => {
    const stray = readdirSync(COMMANDS_DIR).filter(f => !f.endsWith('.js'));
    t.same(stray, []);
});
