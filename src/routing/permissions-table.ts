import { FREE, type PermissionEntry } from '../access/rules';
import type { Command } from '../command-runtime/command';
import type { Route } from './route';

/**
 * The permission of every served command (by name) and documented route (`GET /v1/state/{stateId}`),
 * as `listPermissions` answers it: derived from the command files and the route table themselves,
 * so it can never disagree with what is enforced. Commands first, each group in name order.
 */
export function permissionTable(
    commands: Iterable<Command>,
    routes: readonly Route[],
): Readonly<Record<string, PermissionEntry>> {
    const table: Record<string, PermissionEntry> = {};
    for (const cmd of [...commands].sort((a, b) => a.name.localeCompare(b.name))) {
        table[cmd.name] = cmd.permission ?? FREE;
    }
    const documented = routes
        .filter(route => !route.hidden)
        .map(
            route =>
                [
                    `${route.method} ${route.path.replace(/:(\w+)/g, '{$1}').replace(/\*$/, `{${route.wildcard ?? 'path'}}`)}`,
                    route,
                ] as const,
        );
    for (const [key, route] of documented.sort(([a], [b]) => a.localeCompare(b))) {
        table[key] = route.permission ?? FREE;
    }
    return Object.freeze(table);
}
