import type { IncomingMessage } from 'node:http';
import type { Command } from '../command-runtime/command';
import type { ErrorReporter } from '../instance/error-reports';
import type { ContextServices } from '../context/request-context';
import type { StoragePort } from '../storage/port';
import type { TokenServices } from '../auth/tokens';

/** Request-independent parts, built once at start and shared by every request. */
export interface AppServices extends ContextServices {
    /** js-controller, through the one port; handlers never see it (they get `data`, per caller). */
    storage: StoragePort;
    /** Inside the web adapter with its auth on: the user web authenticated (requests run as this user). */
    identify?: (req: IncomingMessage) => string | undefined;
    /** Where login sessions live and how their user is read now, for authentication. */
    sessionStore: TokenServices;
    /** Commands served under `/v1/command`, after `noCommands` / `noAdminCommands`. */
    commands: ReadonlyMap<string, Command>;
    /** `''` standalone, `/rest-api` inside the web adapter. */
    basePath: string;
    /** Code errors of requests, to the maintainers when the instance allows it. */
    errors: ErrorReporter;
    /** Starts hearing the other instances on this database: who is alive, their failed logins. */
    startSharing(): Promise<void>;
}
