import type { Command } from './command-runtime/command';
import type { ErrorReporter } from './error-reports';
import type { HandlerServices } from './handler-services';
import type { StoragePort } from './storage/port';

/** Request-independent parts, built once at start and shared by every request. */
export interface AppServices extends HandlerServices {
    /** js-controller, through the one port; handlers never see the adapter itself. */
    storage: StoragePort;
    /** Inside the web adapter with its auth on: the user web authenticated (requests run as this user). */
    identify?: (req: import('node:http').IncomingMessage) => string | undefined;
    /** Commands served under `/v1/command`, after `noCommands` / `noAdminCommands`. */
    commands: ReadonlyMap<string, Command>;
    /** `''` standalone, `/rest-api` inside the web adapter. */
    basePath: string;
    /** Code errors of requests, to the maintainers when the instance allows it. */
    errors: ErrorReporter;
    /** Starts hearing the other instances on this database: who is alive, their failed logins. */
    startSharing(): Promise<void>;
}
