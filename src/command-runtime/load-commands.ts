import { readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { Kind, type TObject } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { Command } from './command';

export const COMMANDS_DIR = join(__dirname, '..', '..', 'commands');

const PERMISSION_TYPES = ['state', 'object', 'file', 'users', 'other'];

class CommandFileError extends Error {
    constructor(file: string, problem: string) {
        super(`Invalid command file ${file}: ${problem}`);
    }
}

function check(file: string, command: unknown): Command {
    const fail = (problem: string): never => {
        throw new CommandFileError(file, problem);
    };
    if (!command || typeof command !== 'object' || typeof (command as Command).handler !== 'function') {
        fail('the default export must be a command with a handler function (use defineCommand)');
    }
    const cmd = command as Command;
    const expected = basename(file).replace(/\.[jt]s$/, '');
    if (cmd.name !== expected) {
        fail(`name "${cmd.name}" differs from the file name "${expected}"`);
    }
    if (!cmd.summary?.trim()) {
        fail('summary is empty');
    }
    if (cmd.effect !== 'read' && cmd.effect !== 'write') {
        fail(`effect must be "read" or "write", not "${String(cmd.effect)}"`);
    }
    if (!['result', 'results', 'raw'].includes(cmd.envelope)) {
        fail(`envelope must be "result", "results" or "raw"`);
    }
    if (cmd.permission !== null && (!PERMISSION_TYPES.includes(cmd.permission?.type) || !cmd.permission.operation)) {
        fail(`permission must be null or {type, operation} with type one of ${PERMISSION_TYPES.join(', ')}`);
    }
    if (!cmd.result || typeof cmd.result !== 'object' || !(Kind in cmd.result)) {
        fail('result must be a TypeBox schema of the answer');
    }
    const params = cmd.params as TObject | undefined;
    if (!params || params[Kind] !== 'Object') {
        fail('params must be a TypeBox object schema');
    }
    for (const [name, prop] of Object.entries(params!.properties)) {
        if (prop.default !== undefined && !Value.Check(prop, prop.default)) {
            fail(`the default of parameter "${name}" violates its own schema`);
        }
    }
    if (cmd.binary?.response && params!.properties.binary?.type !== 'boolean') {
        fail('binary.response needs a boolean "binary" parameter');
    }
    return cmd;
}

/** The command under each of its other names: the same handler, a summary that points to the main name. */
function aliasesOf(cmd: Command): Command[] {
    return (cmd.aliases ?? []).map(name => ({
        ...cmd,
        name,
        summary: `Same as ${cmd.name} (kept for old clients)`,
        aliases: undefined,
    }));
}

/** Loads every command file once at start and refuses to go on when one is malformed. */
export function loadCommands(dir = COMMANDS_DIR): ReadonlyMap<string, Command> {
    const files = readdirSync(dir)
        .filter(f => /\.js$/.test(f) && !f.startsWith('_') && !/\.(test|d)\./.test(f))
        .sort();
    const registry = new Map<string, Command>();
    for (const file of files) {
        let exported: unknown;
        try {
            // eslint-disable-next-line @typescript-eslint/no-require-imports
            exported = require(join(dir, file)).default;
        } catch (err) {
            throw new CommandFileError(file, `cannot be loaded: ${(err as Error).message}`);
        }
        const cmd = check(file, exported);
        for (const each of [cmd, ...aliasesOf(cmd)]) {
            // URLs of 4.0.2 are matched case-insensitively, so names may not differ in case only
            const clash = [...registry.keys()].find(name => name.toLowerCase() === each.name.toLowerCase());
            if (clash) {
                throw new CommandFileError(
                    file,
                    `duplicate command name "${each.name}" (already defined as "${clash}")`,
                );
            }
            registry.set(each.name, each);
        }
    }
    return registry;
}
