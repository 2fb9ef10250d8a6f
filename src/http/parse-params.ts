import { FormatRegistry, type TObject, type TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import type { ValueError } from '@sinclair/typebox/errors';
import { HttpError, type ParamProblem } from './http-error';
import { booleanFromText } from './boolean-text';
import { MAX_JSON_DEPTH, tooDeep } from './read-body';

// `password` only tells the docs page to mask the input; any text is one
if (!FormatRegistry.Has('password')) {
    FormatRegistry.Set('password', () => true);
}

/** Raw request values: strings from the query (`null` for a bare `?key`), JSON types from a body. */
export type RawParams = Record<string, unknown>;

function kindsOf(schema: TSchema): Set<string> {
    const kinds = new Set<string>();
    const visit = (s: TSchema): void => {
        if (Array.isArray(s.anyOf)) {
            s.anyOf.forEach(visit);
        } else if (typeof s.type === 'string') {
            kinds.add(s.type === 'integer' ? 'number' : s.type);
        } else if (Array.isArray(s.type)) {
            s.type.forEach((t: string) => kinds.add(t === 'integer' ? 'number' : t));
        } else {
            kinds.add('any');
        }
    };
    visit(schema);
    return kinds;
}

/** A value that could not be read as its type; returned rather than thrown, so a good value costs no object. */
class Problem {
    constructor(readonly text: string) {}
}

/** Turns query text into the declared type; body values keep their JSON type where it fits. */
function coerce(name: string, value: unknown, kinds: Set<string>, fromBody: boolean): unknown {
    if (value === undefined) {
        return undefined;
    }
    if (value === null && fromBody) {
        // a JSON null is a value where the schema takes any; for a typed field it counts as not given
        return kinds.has('null') || kinds.has('any') ? null : undefined;
    }
    if (value === null) {
        // a bare `?binary` is a flag; other bare keys count as "not given"
        return kinds.has('boolean') ? true : kinds.has('null') ? null : undefined;
    }
    if (
        typeof value === 'number' &&
        fromBody &&
        kinds.has('boolean') &&
        !kinds.has('number') &&
        (value === 0 || value === 1)
    ) {
        // 1 and 0 are the boolean words of the query; a JSON body may send them as numbers
        return value === 1;
    }
    if (typeof value === 'string') {
        const text = value.trim();
        if (text === '' && !kinds.has('string') && !kinds.has('any')) {
            // `?timeout=` or `?withInfo=`: given without a value, as absent
            return undefined;
        }
        if ((kinds.has('object') || kinds.has('array')) && /^[[{]/.test(text)) {
            if (tooDeep(text)) {
                return new Problem(`Cannot parse ${name}: nested deeper than ${MAX_JSON_DEPTH} levels`);
            }
            try {
                return JSON.parse(text);
            } catch (err) {
                return new Problem(`Cannot parse ${name}: ${(err as Error).message}`);
            }
        }
        if (kinds.has('string') || kinds.has('any')) {
            return value;
        }
        if (kinds.has('number') && text !== '' && Number.isFinite(Number(text))) {
            return Number(text);
        }
        const flag = booleanFromText(text);
        if (kinds.has('boolean') && flag !== undefined) {
            return flag;
        }
        return value;
    }
    if ((typeof value === 'number' || typeof value === 'boolean') && kinds.has('string') && !kinds.has(typeof value)) {
        return String(value);
    }
    return value;
}

export interface CompiledParams {
    schema: TObject;
    names: string[];
    kinds: Map<string, Set<string>>;
    required: Set<string>;
    check: TypeCheck<TObject>;
}

/** Compiled once per command at start, so requests allocate no schema machinery. */
export function compileParams(schema: TObject): CompiledParams {
    const names = Object.keys(schema.properties);
    const kinds = new Map(names.map(n => [n, kindsOf(schema.properties[n])]));
    return { schema, names, kinds, required: new Set(schema.required ?? []), check: TypeCompiler.Compile(schema) };
}

const compiledSchemas = new WeakMap<TObject, CompiledParams>();

/** The compiled form of a command's params or a route's query, compiled on first use and kept. */
export function compiledFor(schema: TObject): CompiledParams {
    let compiled = compiledSchemas.get(schema);
    if (!compiled) {
        compiled = compileParams(schema);
        compiledSchemas.set(schema, compiled);
    }
    return compiled;
}

function jsonType(value: unknown): string {
    return Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value;
}

/**
 * A choice among fixed words names the word that is none of them, and a union whose one branch has
 * the value's type (a list of ids or a pattern) says what is wrong in that branch, rather than
 * "Expected union value".
 */
function problemText(error: ValueError): string {
    const { schema, value, message } = error;
    if (!Array.isArray(schema.anyOf)) {
        return message;
    }
    if (schema.anyOf.every((s: TSchema) => 'const' in s)) {
        return `unknown value ${JSON.stringify(value)}, expected one of ${schema.anyOf.map((s: TSchema) => String(s.const)).join(', ')}`;
    }
    const branch = schema.anyOf.findIndex((s: TSchema) => s.type === jsonType(value));
    return (branch !== -1 && error.errors[branch]?.First()?.message) || message;
}

function quote(names: string[]): string {
    return names.map(n => `'${n}'`).join(', ');
}

/** `bodyKeys`: which raw values came from a JSON body (`all` for a body alone), where null means null, not a bare flag. */
export function parseParams(
    compiled: CompiledParams,
    raw: RawParams,
    bodyKeys?: ReadonlySet<string> | 'all',
): Record<string, unknown> {
    const { schema, names, kinds, required, check } = compiled;
    const out: Record<string, unknown> = {};
    const problems: ParamProblem[] = [];
    for (const name of names) {
        let value = coerce(name, raw[name], kinds.get(name)!, bodyKeys === 'all' || !!bodyKeys?.has(name));
        if (value instanceof Problem) {
            problems.push({ param: name, problem: value.text });
            continue;
        }
        const prop = schema.properties[name];
        if (prop['x-clamp'] === true) {
            // 4.0.2 read these timeouts as parseInt(x) || default and capped them: garbage counts as
            // not given, and a value outside the schema's bounds becomes the nearest bound
            // (0 too: `parseInt('0') || default` is the default)
            value =
                typeof value === 'number' && Number.isFinite(value) && Math.trunc(value) !== 0
                    ? Math.min(prop.maximum ?? Infinity, Math.max(prop.minimum ?? -Infinity, Math.trunc(value)))
                    : undefined;
        }
        if (value === undefined && prop.default !== undefined) {
            value = structuredClone(prop.default);
        }
        if (value === undefined) {
            if (required.has(name)) {
                problems.push({ param: name, problem: 'required' });
            }
            continue;
        }
        out[name] = value;
    }
    if (!problems.length && !check.Check(out)) {
        for (const error of check.Errors(out)) {
            const param = error.path.split('/')[1] || '(body)';
            if (!problems.some(p => p.param === param)) {
                problems.push({ param, problem: problemText(error) });
            }
        }
    }
    if (problems.length) {
        throw paramsError(problems, names);
    }
    return out;
}

export function paramsError(problems: ParamProblem[], expected: string[]): HttpError {
    const missing = problems.filter(p => p.problem === 'required').map(p => p.param);
    const parts: string[] = [];
    if (missing.length) {
        parts.push(
            `Argument${missing.length > 1 ? 's' : ''} ${quote(missing)} not found. Following arguments are expected: ${quote(expected)}`,
        );
    }
    for (const p of problems.filter(p => p.problem !== 'required')) {
        parts.push(p.problem.startsWith('Cannot parse') ? p.problem : `Argument '${p.param}': ${p.problem}`);
    }
    return new HttpError('INVALID_PARAMS', parts.join('; '), { context: { details: problems } });
}
