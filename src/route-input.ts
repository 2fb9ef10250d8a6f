import { compileParams, parseParams, type CompiledParams } from './parse-params';
import type { Query } from './query';
import type { Route } from './route';

const compiled = new WeakMap<Route, CompiledParams>();

/**
 * The declared query parameters of a route, through the same compiled parser as command params:
 * one boolean convention, bounds from the schema, 422 naming the parameter. Compiled on first use.
 */
export function routeInput(route: Route, query: Query): Record<string, unknown> {
    if (!route.query) {
        return {};
    }
    let params = compiled.get(route);
    if (!params) {
        params = compileParams(route.query);
        compiled.set(route, params);
    }
    return parseParams(params, query);
}
