import type { TObject, TSchema } from '@sinclair/typebox';
import type { Command } from './command';
import type { Route, RouteResponse } from './route';
import { EXTENSION_PREFIX } from './router';

type Json = Record<string, unknown>;

const ERROR_RESPONSE = {
    description: 'Error: a JSON object with an `error` message',
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
};

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

function pathParameters(path: string): Json[] {
    return [...path.matchAll(/:(\w+)/g)].map(([, name]) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
}

/** A trailing wildcard (`/v1/file/:objectId/*`) is documented as a named path parameter. */
function namedPath(route: Route): string {
    return route.path.replace(/\*$/, `:${route.wildcard ?? 'path'}`);
}

const UPLOAD_BODY = {
    required: true,
    content: {
        'multipart/form-data': { schema: { type: 'object', properties: { file: { type: 'string', format: 'binary' } }, required: ['file'] } },
        'application/octet-stream': { schema: { type: 'string', format: 'binary' } },
    },
};

function documentedResponse({ description, content }: RouteResponse): Json {
    if (!content) {
        return { description };
    }
    const media = Object.entries(content).map(([type, schema]) => [type, { schema: plain(schema) }]);
    return { description, content: Object.fromEntries(media) };
}

function routeOperation(route: Route): Json {
    const documented = Object.entries(route.responses ?? {}).map(([status, response]) => [status, documentedResponse(response)]);
    const path = namedPath(route);
    const op: Json = {
        summary: route.summary,
        tags: [route.tag],
        operationId: `${route.method.toLowerCase()}${path.replace(/[^a-zA-Z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())}`,
        parameters: [...pathParameters(path), ...queryParameters(route.query)],
        responses: { '200': { description: 'Success' }, ...Object.fromEntries(documented), default: ERROR_RESPONSE },
    };
    if (route.permission) {
        op['x-permission'] = route.permission;
    }
    if (route.body === 'json') {
        op.requestBody = { required: true, content: { 'application/json': { schema: route.requestBody ? plain(route.requestBody) : {} } } };
    } else if (route.body === 'upload') {
        op.requestBody = UPLOAD_BODY;
    }
    return op;
}

function commandOperations(cmd: Command): Json {
    const base = {
        tags: ['commands'],
        'x-permission': cmd.permission ?? 'none',
        'x-effect': cmd.effect,
        responses: {
            '200': { description: envelopeText(cmd) },
            default: ERROR_RESPONSE,
        },
    };
    const legacy = cmd.effect === 'write' ? ' GET is kept for scripts written for 4.0.2; prefer POST.' : '';
    return {
        get: {
            ...base,
            summary: cmd.summary,
            description: (cmd.description ?? cmd.summary) + legacy,
            operationId: `command_${cmd.name}_get`,
            parameters: queryParameters(cmd.params),
        },
        post: {
            ...base,
            summary: cmd.summary,
            description: `${cmd.description ?? cmd.summary} Parameters as a JSON body.`,
            operationId: `command_${cmd.name}_post`,
            requestBody: { content: { 'application/json': { schema: plain(cmd.params) } } },
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

/** The OpenAPI 3.1 document, built once at start from the same declarations that drive routing. */
export function buildOpenApi({ routes, commands, version, basePath, auth }: OpenApiInput): Json {
    const paths: Record<string, Json> = {};
    for (const route of routes) {
        if (route.hidden) {
            continue;
        }
        const path = namedPath(route).replace(/:(\w+)/g, '{$1}');
        paths[path] = { ...(paths[path] ?? {}), [route.method.toLowerCase()]: routeOperation(route) };
    }
    for (const cmd of commands) {
        paths[`/v1/command/${cmd.name}`] = commandOperations(cmd);
    }
    return {
        openapi: '3.1.0',
        info: {
            title: 'ioBroker REST API',
            version,
            description: 'Read and write ioBroker states, objects and files, and call socket commands.',
            license: { name: 'MIT', identifier: 'MIT' },
        },
        servers: [
            basePath
                ? { url: basePath, description: 'Mounted in the web adapter' }
                : { url: '/', description: `Standalone server; every path also answers under ${EXTENSION_PREFIX}/ (the web-extension path), e.g. ${EXTENSION_PREFIX}/v1/state/{stateId}` },
        ],
        tags: [
            { name: 'state', description: 'States: values with ack, ts, lc, from, q' },
            { name: 'object', description: 'Objects: typed metadata' },
            { name: 'commands', description: 'Socket commands of ioBroker, by name' },
            { name: 'enum', description: 'Enums: rooms, functions and other groups of objects' },
            { name: 'file', description: 'Files stored in meta objects, and their folders' },
            { name: 'history', description: 'Values of the history instance' },
            { name: 'sendto', description: 'Messages to adapter instances' },
            { name: 'log', description: 'Log files of the hosts' },
            { name: 'events', description: 'Change notifications as server-sent events' },
            { name: 'other', description: 'Instance information' },
        ],
        paths,
        components: {
            schemas: {
                Error: {
                    type: 'object',
                    required: ['error'],
                    properties: { error: { type: 'string' }, details: { type: 'array', items: { type: 'object' } } },
                },
            },
            securitySchemes: {
                basicAuth: { type: 'http', scheme: 'basic' },
                bearerAuth: { type: 'http', scheme: 'bearer' },
            },
        },
        ...(auth ? { security: [{ basicAuth: [] }, { bearerAuth: [] }] } : {}),
    };
}
