/*
 * Browser rules (cross-site writes and DNS rebinding). A request that runs on ambient authority
 * (auth off: the default user; inside web with web's auth: its session cookie) can be sent by any
 * page the owner visits. Only browsers send `Origin` or `Sec-Fetch-Site`, and page script cannot
 * forge them, so requests without either (curl, integrations, every 4.0.2 client) are not touched.
 */
import type { IncomingMessage } from 'node:http';
import { isIPv4 } from 'node:net';
import { hostname } from 'node:os';
import type { Config } from '../instance/config';
import { HttpError } from './http-error';

/** Both checks are for browser requests only (`isBrowserRequest`). */
export interface BrowserGuard {
    /** Refuses a browser request whose Host names no address of ours (DNS rebinding). */
    checkHost(req: IncomingMessage): void;
    /** Refuses a browser's write sent from a foreign page. */
    checkWrite(req: IncomingMessage): void;
}

const IPV6_LITERAL = /^\[[0-9a-f:.]+\]$/i;

export function isBrowserRequest(req: IncomingMessage): boolean {
    return req.headers.origin !== undefined || req.headers['sec-fetch-site'] !== undefined;
}

/** The names under which this machine may be reached by name: localhost, its host name and short form, `allowedHosts`. */
export function ownHostNames(config: Config, machine = hostname()): Set<string> {
    const name = machine.toLowerCase();
    return new Set(
        ['localhost', name, name.split('.')[0], ...config.allowedHosts.map(h => h.toLowerCase())].filter(Boolean),
    );
}

/** The host part of a Host header, without port; an IPv6 literal keeps its brackets. */
function hostOf(header: string): string {
    const host = header.trim().toLowerCase();
    if (host.startsWith('[')) {
        const end = host.indexOf(']');
        return end === -1 ? host : host.slice(0, end + 1);
    }
    const colon = host.indexOf(':');
    return colon === -1 ? host : host.slice(0, colon);
}

/** A name an attacker can point at us is refused; an address literal cannot be rebound. */
export function isOwnHost(header: string | undefined, names: Set<string>): boolean {
    if (!header) {
        return false;
    }
    const host = hostOf(header);
    return isIPv4(host) || IPV6_LITERAL.test(host) || names.has(host);
}

/**
 * Our own origin: the page's host and port are the Host it sent to us (one port, one server, whatever
 * the scheme, so a TLS proxy in front does not matter); a browser also says `same-origin` itself.
 */
function isSameOrigin(req: IncomingMessage, origin: string): boolean {
    if (req.headers['sec-fetch-site'] === 'same-origin') {
        return true;
    }
    const host = req.headers.host;
    const start = origin.indexOf('://');
    return !!host && start !== -1 && origin.slice(start + 3).toLowerCase() === host.toLowerCase();
}

/**
 * `writes`: rule (a), for requests on ambient authority; `hosts`: rule (b), for requests that need
 * no credentials at all (a rebinding page cannot carry the owner's cookie for our name).
 */
export function createBrowserGuard(config: Config, rules: { writes: boolean; hosts: boolean }): BrowserGuard {
    const names = ownHostNames(config);
    const origins = new Set(config.corsOrigins);
    return {
        checkHost(req) {
            if (rules.hosts && !isOwnHost(req.headers.host, names)) {
                throw new HttpError(
                    'FORBIDDEN',
                    `Host ${String(req.headers.host ?? '')} is not allowed for browser requests: add it to allowedHosts`,
                );
            }
        },
        checkWrite(req) {
            if (!rules.writes) {
                return;
            }
            const origin = req.headers.origin;
            if (origin === undefined) {
                // image and link GETs carry no Origin, but a Sec-Fetch-Site
                if (req.headers['sec-fetch-site'] === 'cross-site') {
                    throw new HttpError('FORBIDDEN', 'A write from another site is refused');
                }
                return;
            }
            if (!origins.has(origin) && !isSameOrigin(req, origin)) {
                throw new HttpError('FORBIDDEN', `A write from the origin ${origin} is refused: add it to corsOrigins`);
            }
        },
    };
}
