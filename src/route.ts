import type { IncomingHttpHeaders } from 'node:http';
import type { TObject, TSchema } from '@sinclair/typebox';
import type { Permission } from './command';
import type { Query } from './query';
import type { RequestContext } from './request-context';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RouteRequest {
    params: Record<string, string>;
    query: Query;
    body: unknown;
    headers: IncomingHttpHeaders;
}

/** A REST resource route; listed explicitly in `routes/index.ts` because its URL is public API. */
export interface Route {
    method: Method;
    path: string;
    summary: string;
    tag: string;
    permission: Permission | null;
    /** Answered without authentication (docs assets, `/name`). */
    public?: boolean;
    /** Read a JSON body before the handler runs. */
    body?: 'json';
    /** Query parameters, for the docs; path parameters come from the path itself. */
    query?: TObject;
    requestBody?: TSchema;
    /** Kept out of the OpenAPI document (docs assets, redirects). */
    hidden?: boolean;
    handler(req: RouteRequest, ctx: RequestContext): Promise<unknown>;
}

export function defineRoute(route: Route): Route {
    return route;
}
