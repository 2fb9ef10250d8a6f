import { compiledFor, parseParams } from './parse-params';
import type { Query } from './query';
import type { Route } from './route';

/**
 * The declared query parameters of a route, through the same compiled parser as command params:
 * one boolean convention, bounds from the schema, 422 naming the parameter. Compiled on first use.
 */
export function routeInput(route: Route, query: Query): Record<string, unknown> {
    return route.query ? parseParams(compiledFor(route.query), query) : {};
}
