import FindMyWay, { type HTTPVersion, type Instance } from 'find-my-way';
import type { Command } from './command';
import type { Route } from './route';

/** What find-my-way hands back for a match: a REST route or a command. */
export type Target = { route: Route; command?: undefined } | { command: Command; route?: undefined };

export type AppRouter = Instance<HTTPVersion.V1>;

const noop = (): void => undefined;

/** Builds the route table once; requests only look up, never build. */
export function buildRouter(routes: readonly Route[], commands: Iterable<Command>, basePath: string): AppRouter {
    const router = FindMyWay({
        caseSensitive: false,
        ignoreTrailingSlash: true,
        ignoreDuplicateSlashes: true,
        // ioBroker ids can be long
        maxParamLength: 1000,
    });
    for (const route of routes) {
        router.on(route.method, basePath + route.path, noop, { route } satisfies Target);
    }
    for (const command of commands) {
        router.on(['GET', 'POST'], `${basePath}/v1/command/${command.name}`, noop, { command } satisfies Target);
    }
    return router;
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** Methods that exist for a path, for 405 answers with an `Allow` header. */
export function allowedMethods(router: AppRouter, path: string): string[] {
    return METHODS.filter(method => router.find(method, path) !== null);
}
