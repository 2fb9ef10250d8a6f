import type { IncomingHttpHeaders } from 'node:http';
import type { Static, TObject, TSchema } from '@sinclair/typebox';
import type { Permission } from '../access/rules';
import type { Query } from '../http/query';
import type { RequestContext } from '../context/request-context';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * A request as its route declared it: `defineRoute` types `params`, `input` and `body` from the
 * route's path, `params`, `query`, `body` and `requestBody`; without type arguments the untyped form.
 */
export interface RouteRequest<Params = Record<string, string>, Input = Record<string, unknown>, Body = unknown> {
    /** Path parameters, checked by the route's path schema. */
    params: Params;
    /** The query as sent; read `input` for declared parameters. */
    query: Query;
    /** The declared query parameters, parsed and checked by the route's `query` schema (422 otherwise). */
    input: Input;
    /** A JSON body parsed by the route's object `requestBody` (declared fields typed, free ones kept). */
    body: Body;
    headers: IncomingHttpHeaders;
    /** The client's address, e.g. for damping password guessing. */
    remoteAddress: string;
    /** The prefix the request came in under (`''` or `/rest-api`, or the public one), for links back to this server. */
    prefix: string;
    /** The path and query as the client sent them, for links to the next page. */
    url: string;
    /**
     * Set when a trusted proxy or `publicUrl` names the public base (src/http/forwarded.ts): `prefix` and
     * `url` are then the public ones, and `origin` the public origin when it is known.
     */
    forwarded?: { origin?: string };
    /** A signal aborted when the client goes away, made on the first call; only for routes marked `waits`. */
    goneSignal?: () => AbortSignal;
    /**
     * Whether the client went away, for routes marked `waits` that only look when something happens
     * (a long poll when an event comes): asked, never listened to, so 10,000 waiting polls hold no
     * abort controller and listener each.
     */
    gone?: () => boolean;
}

/** A documented answer: its media types, each with the schema of the body. */
export interface RouteResponse {
    description: string;
    content?: Record<string, TSchema>;
}

/** A REST resource route; listed explicitly in `routes/index.ts` because its URL is public API. */
export interface Route {
    method: Method;
    path: string;
    summary: string;
    /** Longer text for the docs; the summary when absent. */
    description?: string;
    tag: string;
    permission: Permission | null;
    /**
     * How an API token with a scope may use this route (src/access/scope.ts): `ids` when every state and
     * object it reads or writes passes the caller's per-id rules, which apply the scope; `metrics` for
     * /metrics. Without it the route is refused to such a token (files, logs, messages, management).
     */
    scoped?: 'ids' | 'metrics';
    /** Answered without authentication (docs assets, `/name`). */
    public?: boolean;
    /**
     * Answered while the database is away, without a 503 first: by default the public routes (docs,
     * `/name`); `/metrics` reports the outage itself; a public route that writes says `false`.
     */
    offline?: boolean;
    /**
     * Read the body before the handler runs: `json`, `form` (urlencoded or JSON, as OAuth2 clients
     * send), `upload` (a multipart `file` field or raw bytes, as `Buffer | undefined`), or `raw`
     * (the bytes as sent, a `Buffer`, e.g. to check a signature over them).
     */
    body?: 'json' | 'form' | 'upload' | 'raw';
    /** Bytes of body read at most (413 beyond), below the instance's `bodyLimit`: public routes keep it small. */
    bodyLimit?: number;
    /**
     * Runs before the body is read (its `body` is still undefined): a public route refuses here what it
     * can tell without the body, so an unknown caller cannot make it read one.
     */
    beforeBody?(req: RouteRequest, ctx: RequestContext): Promise<void> | void;
    /** The docs name of a trailing `*` (it may contain `/`), e.g. `fileName`; handlers read `params['*']`. */
    wildcard?: string;
    /** Path parameters with more than plain text to declare; each `:name` is text otherwise. */
    params?: TObject;
    /** Query parameters: parsed by this schema into `input` (one boolean convention, bounds), and documented. */
    query?: TObject;
    /** The JSON body: an object schema is parsed like command params (422 naming the field) before the handler. */
    requestBody?: TSchema;
    /** The JSON body may be left out (its fields can come from the query instead). */
    optionalBody?: boolean;
    /**
     * Conditional requests it offers (src/http/conditional.ts), for the document: `read` answers ETag
     * (and Last-Modified) and 304 to If-None-Match / If-Modified-Since; `write` takes If-Match (412);
     * `create` also If-None-Match: * (create only when absent).
     */
    conditional?: 'read' | 'write' | 'create';
    /** The successful answers by status, each with its media types and body schemas. */
    responses: Record<string, RouteResponse>;
    /**
     * Error statuses the handler itself answers (e.g. 404, 409); those every route of its kind can
     * meet (401, 403, 422, 400/413 with a body, 503) are added from its declaration.
     */
    errors?: number[];
    /** The answer holds a token or secret: `Cache-Control: no-store` instead of `no-cache`. */
    noStore?: boolean;
    /** Kept out of the OpenAPI document (docs assets, redirects). */
    hidden?: boolean;
    /**
     * Answer a 401 with a Basic challenge, so a browser asks for credentials. Only for what a
     * person opens in a browser (the docs document), never for API calls.
     */
    challenge?: boolean;
    /** The answer may take long (long polling, event streams): the handler gets `gone()` and `goneSignal()`. */
    waits?: boolean;
    /**
     * A GET that writes (4.0.2's `?value=`, `/toggle`): `true`, or true for the queries that write.
     * Browsers send such GETs cross-site without asking (images, links), so they count as writes.
     */
    writesOnGet?: true | ((query: Query) => boolean);
    /** The answer, or a promise of it: hot paths answer from caches without one. */
    handler(req: RouteRequest, ctx: RequestContext): unknown;
}

type BodyKind = NonNullable<Route['body']>;

/** `:name` parts of a path literal, and `*` for a trailing wildcard; any name for a path that is no literal. */
type PathNames<Path extends string> = Path extends `${string}:${infer Name}/${infer Rest}`
    ? Name | PathNames<Rest>
    : Path extends `${string}:${infer Name}`
      ? Name
      : never;
type PathParams<Path extends string> = string extends Path
    ? Record<string, string>
    : Record<PathNames<Path> | (Path extends `${string}*` ? '*' : never), string>;

/** Declared path parameters as their schema parses them; the other `:name`s as text. */
type ParamsOf<Path extends string, P> = P extends TObject
    ? Omit<PathParams<Path>, keyof Static<P>> & Static<P>
    : PathParams<Path>;
/** The declared query parameters; none without a `query` schema. */
type InputOf<Q> = Q extends TObject ? Static<Q> : Record<never, never>;
/**
 * What the body reader and `routeBody` (route-input.ts) give: a JSON body checked by an object schema
 * (absent when optional), other JSON as sent, a form's fields, an upload's or raw body's bytes.
 */
type BodyOf<K, B, Optional> = K extends 'json'
    ? B extends TObject
        ? Static<B> | (Optional extends true ? undefined : never)
        : unknown
    : K extends 'form'
      ? Record<string, unknown> | undefined
      : K extends 'upload'
        ? Buffer | undefined
        : K extends 'raw'
          ? Buffer
          : undefined;

type TypedRequest<Path extends string, Q, P, K, B, Optional> = RouteRequest<
    ParamsOf<Path, P>,
    InputOf<Q>,
    BodyOf<K, B, Optional>
>;

/** A route as written in its file: the same fields as `Route`, with the handler's request typed by them. */
export interface RouteDeclaration<Path extends string, Q, P, K, B, Optional> extends Omit<
    Route,
    'path' | 'query' | 'params' | 'body' | 'requestBody' | 'optionalBody' | 'beforeBody' | 'handler'
> {
    path: Path;
    query?: Q;
    params?: P;
    body?: K;
    requestBody?: B;
    optionalBody?: Optional;
    // typed by the fields above, never a source of their types
    beforeBody?(req: NoInfer<TypedRequest<Path, Q, P, K, B, Optional>>, ctx: RequestContext): Promise<void> | void;
    handler(req: NoInfer<TypedRequest<Path, Q, P, K, B, Optional>>, ctx: RequestContext): unknown;
}

/** Declares a route; its handler reads `params`, `input` and `body` typed by the declared schemas. */
export function defineRoute<
    const Path extends string,
    Q extends TObject | undefined = undefined,
    P extends TObject | undefined = undefined,
    K extends BodyKind | undefined = undefined,
    B extends TSchema | undefined = undefined,
    Optional extends boolean | undefined = undefined,
>(route: RouteDeclaration<Path, Q, P, K, B, Optional>): Route {
    return route;
}
