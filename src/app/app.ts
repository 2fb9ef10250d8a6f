import type { IncomingMessage, ServerResponse } from 'node:http';
import { isAllowed } from '../access/rules';
import { authenticate, clientAddress } from '../auth/authenticate';
import type { AppServices } from './app-services';
import { createBrowserGuard, isBrowserRequest, type BrowserGuard } from '../http/browser-guard';
import { applyCors } from '../http/cors';
import { createForwarding, type Forwarding, type PublicView } from '../http/forwarded';
import { HttpError, toErrorBody } from '../http/http-error';
import { parseQuery, type Query } from '../http/query';
import { largeBodyUnread, readFormBody, readJsonBody, readRawBody } from '../http/read-body';
import { readUpload } from '../http/read-multipart';
import { createContext, type RequestContext } from '../context/request-context';
import type { Route, RouteRequest } from '../routing/route';
import { allowedMethods, buildRouter, servedPrefixes, type AppRouter, type Target } from '../routing/router';
import { commandErrorExtra, commandReply } from '../routes/command';
import { routeBody, routeInput, routeParams } from '../routing/route-input';
import type { ErrorPlace } from '../instance/error-reports';
import type { Command } from '../command-runtime/command';
import { Reply, send, sendError } from '../http/send';
import { NO_STORE } from '../http/conditional';

export interface App {
    /** The request listener, for a standalone server or mounted inside the web adapter. */
    handle(req: IncomingMessage, res: ServerResponse): void;
    router: AppRouter;
}

/** A matched route and what the request said to it. */
interface Found {
    route: Route;
    params: Record<string, string>;
    query: Query;
    url: string;
    view: PublicView | undefined;
    prefix: string;
}

const ANONYMOUS = { user: '', groups: [], object: {}, state: {}, file: {}, users: {}, other: {} };

function readRouteBody(req: IncomingMessage, route: Route, limit: number): Promise<unknown> {
    switch (route.body) {
        case 'json':
            return readJsonBody(req, limit);
        case 'form':
            return readFormBody(req, limit);
        case 'upload':
            return readUpload(req, limit);
        case 'raw':
            return readRawBody(req, limit);
        default:
            return Promise.resolve(undefined);
    }
}

/**
 * The reason of every such abort, made once: an abort without one makes a DOMException with a stack
 * trace each time, and 10,000 clients of long polls or event streams may leave at once.
 */
const CLIENT_GONE = new DOMException('The client went away', 'AbortError');

/** Aborted when the response is closed before it was finished: the client went away. */
function abortOnClose(res: ServerResponse): AbortSignal {
    const controller = new AbortController();
    if (res.destroyed) {
        // gone while the request was authenticated: nothing may wait for it
        controller.abort(CLIENT_GONE);
        return controller.signal;
    }
    res.once('close', () => {
        if (!res.writableFinished) {
            controller.abort(CLIENT_GONE);
        }
    });
    return controller.signal;
}

function withChallenge(err: unknown, route: Route): unknown {
    if (route.challenge && err instanceof HttpError && err.status === 401) {
        return new HttpError(err.code, err.message, {
            context: err.context,
            status: err.status,
            headers: { 'WWW-Authenticate': 'Basic realm="ioBroker REST API", charset="UTF-8"' },
        });
    }
    return err;
}

/** Whether an API token's scope lets it use this route at all; ids are checked as they are read and written. */
function scopeAdmits(ctx: RequestContext, route: Route): boolean {
    const scope = ctx.acl.token?.scope;
    return !scope || route.scoped === 'ids' || (route.scoped === 'metrics' && scope.metrics);
}

/**
 * Whether a request changes something, for the browser rules: any method but GET/HEAD, and GETs that
 * write. Public routes are left out: they carry their own proof (a secret, a password), not ambient rights.
 */
function writes(method: string | undefined, target: Target, query: Query): boolean {
    if (target.command) {
        return method === 'POST' || target.command.effect === 'write';
    }
    const { route } = target;
    if (route.public) {
        return false;
    }
    if (method !== 'GET' && method !== 'HEAD') {
        return true;
    }
    return route.writesOnGet === true || (route.writesOnGet?.(query) ?? false);
}

/** A path (and query) as the client outside a reverse proxy sees it: the public prefix in place of the mount. */
function publicPath(text: string, mount: string, view: PublicView | undefined): string {
    if (view?.prefix === undefined) {
        return text;
    }
    return view.prefix + (text.toLowerCase().startsWith(mount.toLowerCase()) ? text.slice(mount.length) : text);
}

/** Where a request went (its metrics label once routed), and when it came (`performance.now()`). */
type TimedPlace = ErrorPlace & { started: number; metric?: string };

const PLACE = Symbol('request place');

type Timed = ServerResponse & { [PLACE]?: TimedPlace };

/** What every step of a request reads, made once per app. */
interface Pipeline {
    services: AppServices;
    router: AppRouter;
    /** The context of public routes: they need no user. */
    anonymous: RequestContext;
    guard: BrowserGuard;
    /** The mount prefixes, lower case, longest first: `/rest-api/v1/` must not be read as a path under the root. */
    mounts: string[];
    /** Undefined unless trustProxy or publicUrl is set: then no request reads a forwarding header. */
    forwarding: Forwarding | undefined;
    /** One listener function for every answer that comes later (10,000 waiting polls): no closure each. */
    observeClosed: (this: ServerResponse) => void;
}

/** The request pipeline: a request passes `handle`, `dispatch`, then `runRoute` (or `runCommand`), `answer`. */
export function createApp(services: AppServices, routes: readonly Route[]): App {
    const app = createPipeline(services, routes);
    return {
        router: app.router,
        handle: (req, res) => handle(app, req, res),
    };
}

function createPipeline(services: AppServices, routes: readonly Route[]): Pipeline {
    const prefixes = servedPrefixes(services.basePath);
    const { auth } = services.meta.config;
    const app: Pipeline = {
        services,
        router: buildRouter(routes, services.commands.values(), prefixes),
        anonymous: createContext(services, ANONYMOUS),
        // web's login may be a session cookie, ambient too: its writes get rule (a); a rebinding page has no login for our name
        guard: createBrowserGuard(services.meta.config, {
            writes: !auth || !!services.identify,
            hosts: !auth && !services.identify,
        }),
        mounts: prefixes.map(p => p.toLowerCase()).sort((a, b) => b.length - a.length),
        forwarding: createForwarding(services.meta.config),
        observeClosed(this: ServerResponse): void {
            observe(app, this.req, this, (this as Timed)[PLACE]!);
        },
    };
    return app;
}

/** Answers one request, reports what failed, and counts it in the metrics once it is answered. */
function handle(app: Pipeline, req: IncomingMessage, res: ServerResponse): void {
    // the web adapter has its own CORS handling
    if (!app.services.basePath && applyCors(req, res, app.services.meta.config)) {
        return;
    }
    const place: TimedPlace = { started: performance.now() };
    try {
        dispatch(app, req, res, place)?.catch(err => fail(app, req, res, err, place));
    } catch (err) {
        fail(app, req, res, err, place);
    }
    if (res.writableFinished) {
        // answered in this turn (a cache hit): counted now, without a listener per request
        observe(app, req, res, place);
    } else {
        (res as Timed)[PLACE] = place;
        res.on('close', app.observeClosed);
    }
}

async function context(
    app: Pipeline,
    req: IncomingMessage,
    query: Query,
    view: PublicView | undefined,
): Promise<RequestContext> {
    return createContext(app.services, await authenticate(app.services, req, query, view?.address));
}

/** With authentication off, the default user's context without waiting, once its ACL is loaded. */
function knownContext({ services }: Pipeline): RequestContext | undefined {
    const acl =
        !services.meta.config.auth && !services.identify
            ? services.auth.acls.peek(services.meta.config.defaultUser)
            : undefined;
    return acl && createContext(services, acl);
}

/**
 * Routes one request. Synchronous as long as nothing has to wait: a cache hit is answered in the
 * turn it arrived, without a promise (each would cost the hot read a turn of the microtask queue).
 * Returns a promise only for what waits; errors thrown here or rejected there are answered by `handle`.
 */
function dispatch(app: Pipeline, req: IncomingMessage, res: ServerResponse, place: TimedPlace): Promise<void> | void {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    const query = parseQuery(q === -1 ? '' : url.slice(q + 1));
    const view = app.forwarding?.view(req);
    const browser = isBrowserRequest(req);
    if (browser) {
        app.guard.checkHost(req);
    }
    // HEAD is answered like GET; send() leaves the body out
    const match = app.router.find((req.method === 'HEAD' ? 'GET' : req.method) as 'GET', path);
    if (!match) {
        return unmatched(app, req, path, query, view).then(reply => send(req, res, reply));
    }
    const target = match.store as Target;
    place.route = target.label;
    place.command = target.command?.name;
    place.metric = target.metric;
    if (browser && writes(req.method, target, query)) {
        app.guard.checkWrite(req);
    }
    if ((target.command || !(target.route.offline ?? target.route.public)) && !app.services.meta.storageUp()) {
        // js-controller would queue the call until the DB returns: answer now instead of hanging
        throw new HttpError('UNAVAILABLE', 'Database not connected', { headers: { 'Retry-After': '5' } });
    }
    if (target.command) {
        return runCommand(app, req, res, target.command, { path, query, view, prefix: target.prefix }, place);
    }
    const { route } = target;
    const found: Found = {
        route,
        params: match.params as Record<string, string>,
        query,
        url,
        view,
        prefix: target.prefix,
    };
    const known = route.public ? app.anonymous : knownContext(app);
    if (known) {
        return runRoute(req, res, found, known, app.services.meta.config.bodyLimit);
    }
    return context(app, req, query, view).then(
        ctx => runRoute(req, res, found, ctx, app.services.meta.config.bodyLimit),
        (err: unknown) => {
            throw withChallenge(err, route);
        },
    );
}

/** No route matched: a 405 with the methods that would, else a 404, each after the checks 4.0.2 made first. */
async function unmatched(
    app: Pipeline,
    req: IncomingMessage,
    path: string,
    query: Query,
    view: PublicView | undefined,
): Promise<Reply> {
    const { services } = app;
    // the router folds duplicate slashes; so must this check, or `//v1//x` would skip credentials
    const folded = path.replace(/\/{2,}/g, '/');
    const mount = app.mounts.find(m => folded.toLowerCase().startsWith(`${m}/v1/`));
    const rest = mount === undefined ? '' : folded.slice(mount.length);
    if (mount !== undefined) {
        // like 4.0.2: an unknown /v1 path needs valid credentials before it learns anything
        await context(app, req, query, view);
    }
    if (rest.toLowerCase().startsWith('/v1/command/')) {
        const name = rest.slice('/v1/command/'.length).split('/')[0];
        if (services.meta.config.noCommands) {
            throw new HttpError('NOT_FOUND', 'Commands are disabled');
        }
        if (!services.commands.has(name)) {
            throw new HttpError('NOT_FOUND', `Command ${name} not found`);
        }
    }
    const allow = allowedMethods(app.router, path);
    if (allow.length) {
        throw new HttpError('METHOD_NOT_ALLOWED', `Method ${req.method} not allowed`, {
            headers: { Allow: allow.join(', ') },
        });
    }
    throw new HttpError('NOT_FOUND', `Not found: ${req.method} ${path}`);
}

/** Sends the error; a code error (500) also goes to the maintainers, with where it happened. */
function fail(
    app: Pipeline,
    req: IncomingMessage,
    res: ServerResponse,
    err: unknown,
    place: ErrorPlace,
    extra?: Record<string, unknown>,
): void {
    if (toErrorBody(err).status === 500) {
        app.services.errors.report(err, place);
    }
    if (largeBodyUnread(req) && !res.headersSent) {
        // refused before a large body was read: closing after the answer stops the client sending,
        // and nothing of the rest is buffered or drained (a small one is drained as before)
        res.setHeader('Connection', 'close');
    }
    sendError(req, res, err, extra);
}

async function runCommand(
    app: Pipeline,
    req: IncomingMessage,
    res: ServerResponse,
    command: Command,
    at: { path: string; query: Query; view: PublicView | undefined; prefix: string },
    place: ErrorPlace,
): Promise<void> {
    // authentication failures keep the plain 4.0.2 body, without the command's `results`
    const ctx = knownContext(app) ?? (await context(app, req, at.query, at.view));
    try {
        const body = req.method === 'POST' ? await readJsonBody(req, app.services.meta.config.bodyLimit) : undefined;
        const reply = commandReply(command, at.query, body, ctx, publicPath(at.path, at.prefix, at.view));
        return send(req, res, reply instanceof Promise ? await reply : reply);
    } catch (err) {
        return fail(app, req, res, err, place, commandErrorExtra(command));
    }
}

function runRoute(
    req: IncomingMessage,
    res: ServerResponse,
    { route, params, query, url, view, prefix }: Found,
    ctx: RequestContext,
    bodyLimit: number,
): Promise<void> | void {
    if (!isAllowed(ctx.acl, route.permission) || !scopeAdmits(ctx, route)) {
        throw new HttpError('FORBIDDEN', 'permissionError');
    }
    let signal: AbortSignal | undefined;
    const request: RouteRequest = {
        params: routeParams(route, params),
        query,
        input: routeInput(route, query),
        body: undefined,
        headers: req.headers,
        remoteAddress: view?.address ?? clientAddress(req),
        prefix: view?.prefix ?? prefix,
        url: publicPath(url, prefix, view),
        forwarded:
            view && (view.origin !== undefined || view.prefix !== undefined) ? { origin: view.origin } : undefined,
        // made on the first call: 10,000 waiting polls only ask `gone()` and hold no controller each
        goneSignal: route.waits ? () => (signal ??= abortOnClose(res)) : undefined,
        gone: route.waits ? () => res.destroyed && !res.writableFinished : undefined,
    };
    if (route.beforeBody || route.body) {
        return withBody(req, res, route, request, ctx, Math.min(route.bodyLimit ?? Infinity, bodyLimit));
    }
    return answer(req, res, route, request, ctx);
}

function withBody(
    req: IncomingMessage,
    res: ServerResponse,
    route: Route,
    request: RouteRequest,
    ctx: RequestContext,
    limit: number,
): Promise<void> {
    const read = (): Promise<void> =>
        readRouteBody(req, route, limit).then(body => {
            request.body = route.body ? routeBody(route, body) : undefined;
            return answer(req, res, route, request, ctx);
        });
    // promise handlers rather than an async function: every write passes here
    return route.beforeBody ? Promise.resolve(route.beforeBody(request, ctx)).then(read) : read();
}

function answer(
    req: IncomingMessage,
    res: ServerResponse,
    route: Route,
    request: RouteRequest,
    ctx: RequestContext,
): Promise<void> | void {
    const result = route.handler(request, ctx);
    if (result instanceof Promise) {
        return result.then(value => sendResult(req, res, route, value));
    }
    sendResult(req, res, route, result);
}

function sendResult(req: IncomingMessage, res: ServerResponse, route: Route, result: unknown): void {
    const reply = result instanceof Reply ? result : Reply.json(result);
    if (route.noStore) {
        Object.assign(reply.headers, NO_STORE);
    }
    send(req, res, reply);
}

/** By template, never by raw path: the number of series stays bounded; a client gone first counts as aborted. */
function observe(app: Pipeline, req: IncomingMessage, res: ServerResponse, place: TimedPlace): void {
    app.services.meta.metrics.observe(
        place.metric ?? 'unmatched',
        req.method ?? 'GET',
        res.writableFinished ? res.statusCode : 0,
        (performance.now() - place.started) / 1000,
    );
}
