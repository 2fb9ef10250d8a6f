import FindMyWay, { type HTTPVersion, type Instance } from 'find-my-way';
import type { Command } from '../command-runtime/command';
import type { Route } from './route';

/** What find-my-way hands back for a match: a REST route or a command, and the prefix it came in under. */
export type Target = ({ route: Route; command?: undefined } | { command: Command; route?: undefined }) & {
    prefix: string;
    /** For error reports: `GET /v1/state/:stateId`, or `/v1/command/{name}`. */
    label: string;
    /** The metrics label: the route template or `/v1/command/<name>`, made once here rather than per request. */
    metric: string;
};

/** Where the web adapter mounts us; a standalone server answers there too, so one URL works in both modes. */
export const EXTENSION_PREFIX = '/rest-api';

/** The prefixes a server answers under: its mount point inside web, or the root and the web path. */
export function servedPrefixes(basePath: string): string[] {
    return basePath ? [basePath] : ['', EXTENSION_PREFIX];
}

export type AppRouter = Instance<HTTPVersion.V1>;

const noop = (): void => undefined;

/** Builds the route table once, the same table under every prefix; requests only look up, never build. */
export function buildRouter(
    routes: readonly Route[],
    commands: Iterable<Command>,
    prefixes: readonly string[],
): AppRouter {
    const router = FindMyWay({
        caseSensitive: false,
        ignoreTrailingSlash: true,
        ignoreDuplicateSlashes: true,
        // ioBroker ids can be long
        maxParamLength: 1000,
    });
    const commandList = [...commands];
    for (const prefix of prefixes) {
        for (const route of routes) {
            router.on(route.method, prefix + route.path, noop, {
                route,
                prefix,
                label: `${route.method} ${route.path}`,
                metric: route.path,
            } satisfies Target);
        }
        for (const command of commandList) {
            router.on(['GET', 'POST'], `${prefix}/v1/command/${command.name}`, noop, {
                command,
                prefix,
                label: '/v1/command/{name}',
                metric: `/v1/command/${command.name}`,
            } satisfies Target);
        }
    }
    return router;
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** Methods that exist for a path, for 405 answers with an `Allow` header. */
export function allowedMethods(router: AppRouter, path: string): string[] {
    return METHODS.filter(method => router.find(method, path) !== null);
}
