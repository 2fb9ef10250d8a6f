/*
 * Code errors go to the maintainers through js-controller's own sentry plugin (io-package.json
 * `common.plugins.sentry`): it decides whether reporting is on (the instance's plugin state, the
 * host's `system.config` diag setting, CI machines). We only add what failed (route template,
 * command name) and scrub every event first: no credentials, tokens, query strings, bodies, state
 * values or user names ever leave the machine.
 */

/** Where a failed request was answered: the route's path template or the command's name. */
export interface ErrorPlace {
    route?: string;
    command?: string;
}

export interface ErrorReporter {
    /** Reports a request that ended in a code error (500); client mistakes are never reported. */
    report(err: unknown, place: ErrorPlace): void;
}

/** The part of `@sentry/node` this file uses; the plugin hands us its Sentry object. */
interface SentryLike {
    withScope(callback: (scope: { setTag(key: string, value: string): void }) => void): void;
    captureException(err: unknown): void;
    getGlobalScope(): { addEventProcessor(processor: (event: SentryEvent) => SentryEvent | null): void };
}

type Frame = { vars?: unknown };
export interface SentryEvent {
    message?: string;
    request?: unknown;
    breadcrumbs?: unknown[];
    extra?: unknown;
    server_name?: string;
    user?: { id?: string } & Record<string, unknown>;
    exception?: { values?: Array<{ value?: string; stacktrace?: { frames?: Frame[] } }> };
    tags?: Record<string, unknown>;
    [key: string]: unknown;
}

const REDACTED = '<redacted>';

/** Text of a message without what could be a secret, a value, an id with a user name, or a query. */
export function redact(text: string): string {
    return text
        .replace(/(["'`])(?:(?!\1)[^\\]|\\.)*\1/g, `$1${REDACTED}$1`)
        .replace(/system\.user\.[^\s,;:)'"]+/g, `system.user.${REDACTED}`)
        .replace(/\?[^\s]*/g, `?${REDACTED}`)
        .replace(/\b(Bearer|Basic)\s+\S+/gi, `$1 ${REDACTED}`)
        .replace(/[A-Za-z0-9+/_=-]{20,}/g, REDACTED)
        .replace(/\b\d+(?:\.\d+)?\b/g, '<n>');
}

/** Keeps only what says where the code failed: error type, redacted message, stack frames without variables. */
export function scrub(event: SentryEvent): SentryEvent {
    delete event.request;
    delete event.extra;
    delete event.server_name;
    // Sentry's http integration names the transaction after the raw path (ids, user names)
    delete event.transaction;
    event.breadcrumbs = [];
    if (event.user) {
        // the installation's uuid that the plugin sets, never a user name or address
        event.user = event.user.id ? { id: event.user.id } : undefined;
    }
    if (event.message) {
        event.message = redact(event.message);
    }
    for (const exception of event.exception?.values ?? []) {
        if (exception.value) {
            exception.value = redact(exception.value);
        }
        for (const frame of exception.stacktrace?.frames ?? []) {
            delete frame.vars;
        }
    }
    return event;
}

interface SentryPlugin {
    getSentryObject?(): unknown;
}

/** A reporter on the adapter's sentry plugin; it reports nothing while the plugin is off. */
export function sentryReporter(plugin: () => unknown): ErrorReporter {
    let scrubbing: SentryLike | null = null;
    const sentry = (): SentryLike | null => {
        const instance = plugin() as SentryPlugin | null | undefined;
        const object = (instance?.getSentryObject?.() ?? null) as SentryLike | null;
        if (object && scrubbing !== object) {
            // also applies to what js-controller itself reports (uncaught exceptions, rejections)
            object.getGlobalScope().addEventProcessor(scrub);
            scrubbing = object;
        }
        return object;
    };
    // the plugin is ready before the adapter's ready event: scrub from the start
    sentry();
    return {
        report(err, place) {
            const target = sentry();
            if (!target) {
                return;
            }
            target.withScope(scope => {
                if (place.route) {
                    scope.setTag('route', place.route);
                }
                if (place.command) {
                    scope.setTag('command', place.command);
                }
                const original = err instanceof Error && err.cause instanceof Error ? err.cause : err;
                target.captureException(original instanceof Error ? original : new Error(String(original)));
            });
        },
    };
}

/** Nothing is reported (inside the web adapter: its plugin reports to web's maintainers, not ours). */
export const noReports: ErrorReporter = { report: () => undefined };
