import { Type, type Static } from '@sinclair/typebox';
import { patternToRegExp } from './patterns';

/*
 * What an API token may reach beyond its user's rights being narrowed: id patterns to read, id
 * patterns to write, and command names. Everything not named is refused; the user's own ACL still
 * applies on top.
 */

const PATTERN = Type.String({ minLength: 1, maxLength: 1000, pattern: '^[^\\s,;\'"`<>\\\\\\[\\]?]+$' });

export const ScopeSchema = Type.Object(
    {
        read: Type.Optional(
            Type.Array(PATTERN, {
                maxItems: 100,
                description: 'State and object id patterns it may read, e.g. shelly.0.*; `metrics` also opens /metrics',
            }),
        ),
        write: Type.Optional(
            Type.Array(PATTERN, {
                maxItems: 100,
                description: 'State and object id patterns it may write, e.g. 0_userdata.0.evcc.*',
            }),
        ),
        commands: Type.Optional(
            Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
                maxItems: 100,
                description: 'Commands of /v1/command it may call',
            }),
        ),
    },
    {
        additionalProperties: false,
        description: 'Omitted: the full rights of the user. Anything left out of a given scope is refused.',
    },
);
export type TokenScope = Static<typeof ScopeSchema>;

/** The scope ready for checks on every request and event. */
export interface CompiledScope {
    read(id: string): boolean;
    write(id: string): boolean;
    /** A recursive delete of `id` stays inside the write patterns. */
    writeTree(id: string): boolean;
    command(name: string): boolean;
    /** `metrics` among the read patterns. */
    readonly metrics: boolean;
}

/** The read entry that opens /metrics; no ioBroker id is a bare word like this. */
const METRICS_READ = 'metrics';

function matcher(patterns: string[]): (id: string) => boolean {
    const exact = new Set(patterns.filter(p => !p.includes('*')));
    const wild = patterns.filter(p => p.includes('*')).map(patternToRegExp);
    return id => exact.has(id) || wild.some(re => re.test(id));
}

/** True when every id below `id.` matches one pattern: a pattern `prefix*` whose prefix starts that subtree. */
function coversTree(patterns: string[], id: string): boolean {
    const below = `${id}.`;
    return patterns.some(p => p.indexOf('*') === p.length - 1 && below.startsWith(p.slice(0, -1)));
}

export function compileScope(scope: TokenScope): CompiledScope {
    const given = { read: scope.read ?? [], write: scope.write ?? [], commands: scope.commands ?? [] };
    const read = matcher(given.read);
    const write = matcher(given.write);
    const commands = new Set(given.commands);
    return {
        read,
        write,
        writeTree: id => write(id) && coversTree(given.write, id),
        command: name => commands.has(name),
        metrics: given.read.includes(METRICS_READ),
    };
}

/** The same scope reading what it may write too: a write resolves the id and converts the value by its object. */
export function writingScope(scope: CompiledScope): CompiledScope {
    return { ...scope, read: id => scope.read(id) || scope.write(id) };
}

/** Command names in `scope` that this instance does not serve: the caller gets them named in a 422. */
export function unknownCommands(scope: TokenScope, served: (name: string) => boolean): string[] {
    return (scope.commands ?? []).filter(name => !served(name));
}

type Narrowable = { common?: { members?: unknown }; enums?: Record<string, unknown> } | null | undefined;

/**
 * What a scoped token sees of an object: an enum's members and a listing's `enums` map keep only ids
 * inside its read patterns (ids alone reveal a house). The object itself when nothing is outside.
 */
export function narrowObject<T>(scope: CompiledScope, obj: T): T {
    const given = obj as Narrowable;
    const members = given?.common?.members;
    const enums = given?.enums;
    const cutMembers = Array.isArray(members) && members.some(m => typeof m !== 'string' || !scope.read(m));
    const cutEnums = !!enums && typeof enums === 'object' && Object.keys(enums).some(id => !scope.read(id));
    if (!given || (!cutMembers && !cutEnums)) {
        return obj;
    }
    const copy: Record<string, unknown> = { ...given };
    if (cutMembers) {
        copy.common = {
            ...given.common,
            members: (members as unknown[]).filter(m => typeof m === 'string' && scope.read(m)),
        };
    }
    if (cutEnums) {
        copy.enums = Object.fromEntries(Object.entries(enums).filter(([id]) => scope.read(id)));
    }
    return copy as T;
}
