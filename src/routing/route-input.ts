import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import { HttpError, type ParamProblem } from '../http/http-error';
import { compiledFor, parseParams, paramsError } from '../http/parse-params';
import type { Query } from '../http/query';
import type { Route } from './route';

/**
 * The declared query parameters of a route, through the same compiled parser as command params:
 * one boolean convention, bounds from the schema, 422 naming the parameter. Compiled on first use.
 */
export function routeInput(route: Route, query: Query): Record<string, unknown> {
    return route.query ? parseParams(compiledFor(route.query), query) : {};
}

/** The name a trailing `*` of a route's path has in its declaration and the docs. */
export function wildcardName(route: Route): string {
    return route.wildcard ?? 'path';
}

const pathSchemas = new WeakMap<Route, TObject>();

/** The path parameters of a route as one schema: the route's `params`, or text for each `:name`. */
export function pathSchema(route: Route): TObject {
    let schema = pathSchemas.get(route);
    if (!schema) {
        const names = [...route.path.matchAll(/:(\w+)/g)].map(([, name]) => name);
        const declared = route.params?.properties ?? {};
        const properties: Record<string, TSchema> = Object.fromEntries(
            names.map(n => [n, declared[n] ?? Type.String()]),
        );
        if (route.path.endsWith('*')) {
            properties[wildcardName(route)] =
                declared[wildcardName(route)] ?? Type.String({ description: 'May contain /' });
        }
        schema = Type.Object(properties);
        pathSchemas.set(route, schema);
    }
    return schema;
}

/** Path parameters checked by their declaration; a trailing `*` stays readable as `params['*']`. */
export function routeParams(route: Route, params: Record<string, string>): Record<string, string> {
    const wildcard = route.path.endsWith('*');
    const given = wildcard ? { ...params, [wildcardName(route)]: params['*'] ?? '' } : params;
    if (!route.params) {
        // the derived schema is text for each name, which the router always gives: nothing to check
        return given;
    }
    const schema = pathSchema(route);
    const parsed = parseParams(compiledFor(schema), given) as Record<string, string>;
    return wildcard ? { ...parsed, '*': parsed[wildcardName(route)] } : parsed;
}

function isJsonObject(value: unknown): value is Record<string, unknown> {
    return !!value && typeof value === 'object' && !Array.isArray(value);
}

function isObjectSchema(schema: TSchema | undefined): schema is TObject {
    return !!schema && schema.type === 'object' && !!schema.properties;
}

const nestedObjects = new WeakMap<TObject, string[]>();

/** The fields of a schema that are objects with a schema of their own, found once per schema. */
function nestedNames(schema: TObject): string[] {
    let names = nestedObjects.get(schema);
    if (!names) {
        names = Object.entries(schema.properties)
            .filter(([, prop]) => isObjectSchema(prop))
            .map(([name]) => name);
        nestedObjects.set(schema, names);
    }
    return names;
}

/**
 * A JSON object checked by its schema with the command parser's conventions (so `"5"` for a number
 * and `"true"` for a boolean pass as 4.0.2 accepted them); nested declared objects the same way.
 * Fields the schema does not name are kept unless it forbids them (a 422 then): ioBroker objects carry free ones.
 */
export function parseJsonObject(schema: TObject, value: unknown, where = ''): Record<string, unknown> {
    if (!isJsonObject(value)) {
        const what = where ? `'${where}'` : 'The body';
        throw new HttpError(
            'INVALID_PARAMS',
            `${what} must be a JSON object${where ? '' : ` with ${Object.keys(schema.properties).join(', ')}`}`,
            {
                context: {
                    details: [{ param: where || '(body)', problem: 'must be a JSON object' }],
                },
            },
        );
    }
    const nested = nestedNames(schema);
    // copied only when a nested object is parsed into it: the client's body stays as sent
    const given: Record<string, unknown> = nested.length ? { ...value } : value;
    const problems: ParamProblem[] = [];
    for (const name of nested) {
        if (given[name] !== undefined) {
            try {
                given[name] = parseJsonObject(
                    schema.properties[name] as TObject,
                    given[name],
                    where ? `${where}.${name}` : name,
                );
            } catch (err) {
                problems.push(
                    ...(((err as HttpError).context?.details as ParamProblem[] | undefined) ?? [
                        { param: name, problem: (err as Error).message },
                    ]),
                );
            }
        }
    }
    if (schema.additionalProperties === false) {
        // a schema that forbids other fields names them in the 422 rather than dropping them unseen
        for (const name of Object.keys(given).filter(key => !Object.hasOwn(schema.properties, key))) {
            problems.push({ param: where ? `${where}.${name}` : name, problem: 'is not a known field' });
        }
    }
    if (problems.length) {
        throw paramsError(problems, Object.keys(schema.properties));
    }
    let parsed: Record<string, unknown>;
    try {
        parsed = parseParams(compiledFor(schema), given, 'all');
    } catch (err) {
        const details = (err as HttpError).context?.details as ParamProblem[] | undefined;
        // a nested object's problems name their place from the body's top, e.g. `options.count`
        throw where && details
            ? paramsError(
                  details.map(p => ({ ...p, param: `${where}.${p.param}` })),
                  Object.keys(schema.properties),
              )
            : err;
    }
    if (schema.additionalProperties === false) {
        return parsed;
    }
    // the client's order; a declared field the parser dropped (null or "" where a number is due) stays dropped
    const result: Record<string, unknown> = {};
    for (const key of Object.keys(given)) {
        if (key === '__proto__') {
            // JSON.parse makes it an own field; assigned here it would set the answer's prototype
            continue;
        }
        // own fields only: `toString` or `constructor` in a body are the client's, not Object.prototype's
        if (!Object.hasOwn(schema.properties, key)) {
            result[key] = given[key];
        } else if (Object.hasOwn(parsed, key)) {
            result[key] = parsed[key];
        }
    }
    // then what the parser added (defaults), after the client's fields
    for (const key of Object.keys(parsed)) {
        if (!Object.hasOwn(result, key)) {
            result[key] = parsed[key];
        }
    }
    return result;
}

/**
 * A route's JSON body parsed by its declared object schema; other bodies (uploads, forms with their
 * own OAuth2 error shape, dictionaries) as read. No body is a 422 unless the route marks it optional.
 */
export function routeBody(route: Route, body: unknown): unknown {
    if (route.body !== 'json' || !isObjectSchema(route.requestBody)) {
        return body;
    }
    if ((body === undefined || body === null) && route.optionalBody) {
        // 4.0.2 took these routes' fields from the query when the body had none
        return undefined;
    }
    return parseJsonObject(route.requestBody, body);
}
