import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import type { Command } from '../command-runtime/command';
import { ErrorSchema } from '../http/schemas';
import type { Route, RouteResponse } from './route';
import { EXTENSION_PREFIX } from './router';
import { pathSchema, wildcardName } from './route-input';

type Json = Record<string, unknown>;

/** Why each error status happens, for the docs. */
const ERROR_TEXT: Record<number, string> = {
    400: 'Bad request: the body is no valid JSON, or a request that cannot be served',
    401: 'No credentials, or wrong ones',
    403: "The user lacks the permission (`permissionError`); with auth off (or web's login) also a browser request from a foreign page or host name",
    404: 'Not found',
    405: 'Method not allowed',
    408: 'The request did not arrive in time, or the answer it waits for did not',
    409: 'Conflict with what exists',
    410: 'Gone: no longer exists in ioBroker',
    412: 'Precondition failed: the stored version differs from If-Match (or exists despite If-None-Match: *); nothing was written; the ETag header names the current version when the caller may read it',
    413: 'The body is larger than `bodyLimit`',
    415: 'Unsupported media type',
    422: 'A parameter is missing or invalid; `details` names each',
    431: 'The request headers are too large',
    429: 'Too many failed logins from this address, or too many sessions; see Retry-After',
    501: 'Not implemented, or the acknowledged value did not come in time',
    502: 'The target answered with an error',
    503: 'The ioBroker database is not connected, or the instance asked is not running',
    504: 'The target did not answer in time',
};

function errorResponse(status: number): Json {
    return {
        description: ERROR_TEXT[status] ?? 'Error',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    };
}

/** The error statuses an operation can answer: from what it declares, plus what every request of its kind can meet. */
function errorStatuses(kind: {
    permission: unknown;
    public?: boolean;
    params: boolean;
    body: boolean;
    auth: boolean;
    extra?: number[];
}): number[] {
    // any request whose headers are too large or that does not arrive in time (src/http/server.ts answers both as JSON)
    const statuses = new Set([...(kind.extra ?? []), 408, 431]);
    if (kind.auth && !kind.public) {
        statuses.add(401).add(429);
    }
    // with auth on, an API token's scope may refuse any route or command (src/access/scope.ts);
    // with it off, the browser rules any request (src/http/browser-guard.ts)
    if (kind.permission || !kind.auth || !kind.public) {
        statuses.add(403);
    }
    if (kind.params) {
        statuses.add(422);
    }
    if (kind.body) {
        statuses.add(400).add(413).add(415).add(422);
    }
    if (!kind.public) {
        statuses.add(503);
    }
    return [...statuses].sort((a, b) => a - b);
}

function errorResponses(statuses: number[]): Json {
    return Object.fromEntries(statuses.map(status => [String(status), errorResponse(status)]));
}

/** TypeBox schemas carry symbol keys; a JSON round trip leaves the plain JSON Schema. */
function plain(schema: TSchema): Json {
    return JSON.parse(JSON.stringify(schema)) as Json;
}

function isStructured(schema: Json): boolean {
    const types = Array.isArray(schema.anyOf) ? (schema.anyOf as Json[]).map(s => s.type) : [schema.type];
    return types.includes('object') || types.includes('array');
}

function queryParameters(schema: TObject | undefined): Json[] {
    if (!schema) {
        return [];
    }
    const required = new Set(schema.required ?? []);
    return Object.entries(schema.properties).map(([name, prop]) => {
        const { description, ...rest } = plain(prop);
        const param: Json = { name, in: 'query', required: required.has(name) };
        if (description) {
            param.description = description;
        }
        // JSON text in the query: described as content so the docs page offers a JSON editor
        if (isStructured(rest)) {
            param.content = { 'application/json': { schema: rest } };
        } else {
            param.schema = rest;
        }
        return param;
    });
}

/** From the same schema the router checks them with. */
function pathParameters(route: Route): Json[] {
    const wildcard = route.path.endsWith('*') ? wildcardName(route) : undefined;
    return Object.entries(pathSchema(route).properties).map(([name, schema]) => {
        const { description, ...rest } = plain(schema);
        return {
            name,
            in: 'path',
            required: true,
            schema: rest,
            ...(description ? { description } : {}),
            // the last part of the path, `/` included
            ...(name === wildcard ? { 'x-wildcard': true } : {}),
        };
    });
}

/** A trailing wildcard (`/v1/file/:objectId/*`) is documented as a named path parameter. */
function namedPath(route: Route): string {
    return route.path.replace(/\*$/, `:${wildcardName(route)}`);
}

/** A body taken as sent: JSON, a form, or text. */
const RAW_BODY = {
    required: false,
    content: {
        'application/json': { schema: { anyOf: [{ type: 'object' }, { type: 'array', items: {} }] } },
        'application/x-www-form-urlencoded': { schema: { type: 'object', additionalProperties: { type: 'string' } } },
        'text/plain': { schema: { type: 'string' } },
    },
};

const UPLOAD_BODY = {
    required: true,
    content: {
        'multipart/form-data': {
            schema: { type: 'object', properties: { file: { type: 'string', format: 'binary' } }, required: ['file'] },
        },
        'application/octet-stream': { schema: { type: 'string', format: 'binary' } },
    },
};

const header = (name: string): Json => ({ $ref: `#/components/headers/${name}` });

/** Every success answer says how it may be cached (src/http/conditional.ts). */
const CACHE_HEADERS = { 'Cache-Control': header('CacheControl') };
const VALIDATOR_HEADERS = { ...CACHE_HEADERS, ETag: header('ETag'), 'Last-Modified': header('LastModified') };

/** The request and answer headers of conditional requests, declared once in `components`. */
const CONDITIONAL_COMPONENTS = {
    headers: {
        CacheControl: {
            description: '`no-cache` (kept, but asked again each time), `no-store` for tokens and secrets',
            schema: { type: 'string' },
        },
        ETag: {
            description: 'The version of this answer; send it back in If-None-Match (reads) or If-Match (writes)',
            schema: { type: 'string' },
        },
        LastModified: {
            description: "When it last changed (a state's ts), where the answer has such a time",
            schema: { type: 'string' },
        },
    },
    parameters: {
        IfNoneMatch: {
            name: 'If-None-Match',
            in: 'header',
            required: false,
            description: 'ETags the client has (or *): 304 without a body when one is current',
            schema: { type: 'string' },
        },
        IfModifiedSince: {
            name: 'If-Modified-Since',
            in: 'header',
            required: false,
            description: 'HTTP date: 304 when unchanged since (only without If-None-Match)',
            schema: { type: 'string' },
        },
        IfMatch: {
            name: 'If-Match',
            in: 'header',
            required: false,
            description: 'Write only if the stored version has this ETag (or any, with *); 412 otherwise',
            schema: { type: 'string' },
        },
        IfNoneMatchStar: {
            name: 'If-None-Match',
            in: 'header',
            required: false,
            description: '`*`: create only when absent; 412 otherwise',
            schema: { type: 'string' },
        },
    },
};

const parameter = (name: string): Json => ({ $ref: `#/components/parameters/${name}` });

function documentedResponse({ description, content }: RouteResponse, headers: Json = CACHE_HEADERS): Json {
    if (!content) {
        return { description, headers };
    }
    const media = Object.entries(content).map(([type, schema]) => [type, { schema: plain(schema) }]);
    return { description, headers, content: Object.fromEntries(media) };
}

/** The header parameters and answers a route's conditional requests add. */
function conditionalParts(route: Route): { parameters: Json[]; responses: Json; errors: number[] } {
    switch (route.conditional) {
        case 'read':
            return {
                parameters: [parameter('IfNoneMatch'), parameter('IfModifiedSince')],
                responses: {
                    304: {
                        description:
                            'Not modified: the version named in If-None-Match (or older than If-Modified-Since) is current; no body',
                        headers: VALIDATOR_HEADERS,
                    },
                },
                errors: [],
            };
        case 'write':
            return { parameters: [parameter('IfMatch')], responses: {}, errors: [412] };
        case 'create':
            return { parameters: [parameter('IfMatch'), parameter('IfNoneMatchStar')], responses: {}, errors: [412] };
        default:
            return { parameters: [], responses: {}, errors: [] };
    }
}

function routeOperation(route: Route, auth: boolean): Json {
    const validated = route.conditional === 'read';
    const documented = Object.entries(route.responses).map(([status, response]) => [
        status,
        documentedResponse(response, validated && status === '200' ? VALIDATOR_HEADERS : CACHE_HEADERS),
    ]);
    const path = namedPath(route);
    const parameters = [...pathParameters(route), ...queryParameters(route.query)];
    const conditional = conditionalParts(route);
    const errors = errorStatuses({
        permission: route.permission,
        public: route.public,
        params: parameters.length > 0,
        body: !!route.body,
        auth,
        extra: [...(route.errors ?? []), ...conditional.errors],
    });
    const op: Json = {
        summary: route.summary,
        description: route.description ?? route.summary,
        tags: [route.tag],
        operationId: `${route.method.toLowerCase()}${path.replace(/[^a-zA-Z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())}`,
        parameters: [...parameters, ...conditional.parameters],
        responses: { ...Object.fromEntries(documented), ...conditional.responses, ...errorResponses(errors) },
    };
    if (route.permission) {
        op['x-permission'] = route.permission;
    }
    if (auth && !route.public) {
        // what an API token with a scope may do here: `ids` checks each id against it, `none` refuses
        op['x-token-scope'] = route.scoped ?? 'none';
    }
    if (auth && route.public) {
        // the login routes and /name answer without credentials
        op.security = [];
    }
    if (route.body === 'json') {
        op.requestBody = {
            required: !route.optionalBody,
            content: { 'application/json': { schema: route.requestBody ? plain(route.requestBody) : {} } },
        };
    } else if (route.body === 'upload') {
        op.requestBody = UPLOAD_BODY;
    } else if (route.body === 'raw') {
        op.requestBody = RAW_BODY;
    }
    return op;
}

/** The body a command answers on the wire: its result inside its envelope. */
export function commandAnswerSchema(cmd: Command): TSchema {
    switch (cmd.envelope) {
        case 'result':
            return Type.Object({ error: Type.Null(), result: cmd.result });
        case 'results':
            return Type.Object({ error: Type.Null(), results: cmd.result });
        default:
            return cmd.result;
    }
}

function commandOperations(cmd: Command, auth: boolean): Json {
    const answer = plain(commandAnswerSchema(cmd));
    const content: Json = { 'application/json': { schema: answer } };
    if (cmd.binary?.response) {
        // with binary=true a JSON file is answered as itself, with its own type
        content['application/json'] = {
            schema: { anyOf: [answer, { description: 'With binary=true: a stored JSON file as it is' }] },
        };
        // binary=true answers the bytes with their own type (image/png, …)
        content['*/*'] = { schema: { type: 'string', format: 'binary' } };
    }
    const errors = (body: boolean): Json =>
        errorResponses(
            errorStatuses({
                permission: cmd.permission,
                params: Object.keys(cmd.params.properties).length > 0,
                body,
                auth,
                extra: [...(cmd.errors ?? []), ...(cmd.adminOnly ? [404] : [])],
            }),
        );
    const success: Json = { 200: { description: envelopeText(cmd), headers: CACHE_HEADERS, content } };
    if (cmd.multiStatus) {
        success['207'] = {
            description: 'Some items failed, the others succeeded; the same body',
            headers: CACHE_HEADERS,
            content,
        };
    }
    const base = {
        tags: ['commands'],
        'x-permission': cmd.permission ?? 'none',
        'x-effect': cmd.effect,
        // a scoped API token needs the command named in its scope, and an `id` inside its patterns
        ...(auth ? { 'x-token-scope': 'commands' } : {}),
    };
    const legacy = cmd.effect === 'write' ? ' GET is kept for scripts written for 4.0.2; prefer POST.' : '';
    return {
        get: {
            ...base,
            summary: cmd.summary,
            description: (cmd.description ?? cmd.summary) + legacy,
            operationId: `command_${cmd.name}_get`,
            parameters: queryParameters(cmd.params),
            responses: { ...success, ...errors(false) },
        },
        post: {
            ...base,
            summary: cmd.summary,
            description: `${cmd.description ?? cmd.summary} Parameters as a JSON body.`,
            operationId: `command_${cmd.name}_post`,
            requestBody: { content: { 'application/json': { schema: plain(cmd.params) } } },
            responses: { ...success, ...errors(true) },
        },
    };
}

function envelopeText(cmd: Command): string {
    const binary = cmd.binary?.response ? ' With binary=true the raw bytes.' : '';
    switch (cmd.envelope) {
        case 'result':
            return `{"error":null,"result":…}${binary}`;
        case 'results':
            return `{"error":null,"results":[…]}${binary}`;
        default:
            return `The answer of the command as it is.${binary}`;
    }
}

export interface OpenApiInput {
    routes: readonly Route[];
    commands: Iterable<Command>;
    version: string;
    basePath: string;
    auth: boolean;
}

/** The tags some operation carries, in the order given: a feature switched off leaves no empty section. */
function usedTags(
    paths: Record<string, Json>,
    tags: Array<{ name: string; description: string }>,
): Array<{ name: string; description: string }> {
    const used = new Set(
        Object.values(paths).flatMap(ops =>
            Object.values(ops as Record<string, { tags?: string[] }>).flatMap(op => op.tags ?? []),
        ),
    );
    return tags.filter(tag => used.has(tag.name));
}

/** The OpenAPI 3.1 document, built once at start from the same declarations that drive routing. */
export function buildOpenApi({ routes, commands, version, basePath, auth }: OpenApiInput): Json {
    const paths: Record<string, Json> = {};
    for (const route of routes) {
        if (route.hidden) {
            continue;
        }
        const path = namedPath(route).replace(/:(\w+)/g, '{$1}');
        paths[path] = { ...(paths[path] ?? {}), [route.method.toLowerCase()]: routeOperation(route, auth) };
    }
    for (const cmd of commands) {
        paths[`/v1/command/${cmd.name}`] = commandOperations(cmd, auth);
    }
    return {
        openapi: '3.1.0',
        info: {
            title: 'ioBroker REST API',
            version,
            description: 'Read and write ioBroker states, objects and files, and call socket commands.',
            license: { name: 'MIT', identifier: 'MIT' },
            contact: { name: 'ioBroker REST API', url: 'https://github.com/ioBroker/ioBroker.rest-api' },
        },
        servers: [
            basePath
                ? { url: basePath, description: 'Mounted in the web adapter' }
                : {
                      url: '/',
                      description: `Standalone server; every path also answers under ${EXTENSION_PREFIX}/ (the web-extension path), e.g. ${EXTENSION_PREFIX}/v1/state/{stateId}`,
                  },
        ],
        tags: usedTags(paths, [
            { name: 'state', description: 'States: values with ack, ts, lc, from, q' },
            { name: 'object', description: 'Objects: typed metadata' },
            { name: 'commands', description: 'Socket commands of ioBroker, by name' },
            { name: 'enum', description: 'Enums: rooms, functions and other groups of objects' },
            {
                name: 'devices',
                description: 'Devices as type-detector finds them: states by role, rooms, functions; written by role',
            },
            { name: 'file', description: 'Files stored in meta objects, and their folders' },
            { name: 'history', description: 'Values of the history instance' },
            { name: 'sendto', description: 'Messages to adapter instances' },
            { name: 'log', description: 'Log files of the hosts' },
            { name: 'events', description: 'Change notifications as server-sent events' },
            { name: 'webhooks', description: 'Inbound webhooks: payloads of devices and services written into states' },
            { name: 'other', description: 'Instance information, metrics' },
            { name: 'auth', description: 'Logging in and out: OAuth2 tokens' },
            { name: 'tokens', description: 'API tokens for integrations, each narrowed to what it needs' },
        ]),
        paths,
        components: {
            schemas: {
                Error: plain(ErrorSchema),
            },
            ...CONDITIONAL_COMPONENTS,
            ...(auth
                ? {
                      securitySchemes: {
                          basicAuth: { type: 'http', scheme: 'basic' },
                          bearerAuth: { type: 'http', scheme: 'bearer' },
                      },
                  }
                : {}),
        },
        // without auth an explicit empty requirement: nothing is needed, and the document says so
        security: auth ? [{ basicAuth: [] }, { bearerAuth: [] }] : [],
    };
}
