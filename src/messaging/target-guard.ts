import { lookup, type LookupAddress } from 'node:dns';
import {
    Agent as HttpAgent,
    request as httpRequest,
    type ClientRequest,
    type IncomingMessage,
    type RequestOptions,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { HttpError } from '../http/http-error';

/*
 * Outgoing requests must not reach what the owner did not allow. Two kinds of address are special:
 * this machine (loopback, unspecified) and link-local, which holds the cloud metadata services.
 * URL hooks only deliver, so they may reach this machine by default (Node-RED next to ioBroker, as in
 * 4.0.2); httpGet hands the fetched body back to the caller, so it reaches neither by default.
 * Private LAN ranges stay allowed for both, that is where home devices live.
 */
export interface TargetPolicy {
    loopback: boolean;
    linkLocal: boolean;
    /** The option that allows what was refused, named in the error. */
    option: string;
}

export type AddressKind = 'loopback' | 'linkLocal' | 'other';

export function addressKind(address: string): AddressKind {
    const ip = embeddedIPv4(address.toLowerCase()) ?? address.toLowerCase();
    if (isIP(ip) === 4) {
        const [a, b] = ip.split('.').map(Number);
        if (a === 127 || a === 0) {
            return 'loopback';
        }
        return a === 169 && b === 254 ? 'linkLocal' : 'other';
    }
    if (ip === '::1' || ip === '::') {
        return 'loopback';
    }
    // fd00:ec2::254 is the IPv6 metadata service of one cloud, though outside fe80::/10
    return /^fe[89ab]/.test(ip) || ip.startsWith('fd00:ec2:') ? 'linkLocal' : 'other';
}

/**
 * The IPv4 address inside an IPv4-mapped (`::ffff:a.b.c.d`) or -compatible (`::a.b.c.d`) IPv6 one.
 * URL writes `[::ffff:127.0.0.1]` as `[::ffff:7f00:1]`, and a dual-stack socket connects it to 127.0.0.1.
 */
function embeddedIPv4(ip: string): string | undefined {
    const dotted = /^::(?:ffff:)?(\d+\.\d+\.\d+\.\d+)$/.exec(ip);
    if (dotted) {
        return dotted[1];
    }
    const hex = /^::(?:ffff:)?([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(ip);
    if (!hex) {
        return undefined;
    }
    const [high, low] = [parseInt(hex[1], 16), parseInt(hex[2], 16)];
    return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

function allowed(kind: AddressKind, policy: TargetPolicy): boolean {
    return kind === 'other' || policy[kind];
}

function refused(host: string, address: string, kind: AddressKind, policy: TargetPolicy): HttpError {
    const what = kind === 'loopback' ? 'this machine (loopback)' : 'a link-local or cloud metadata address';
    return new HttpError('FORBIDDEN', `Target ${host} (${address}) is ${what}; the option ${policy.option} allows it`);
}

type Lookup = (
    hostname: string,
    options: { all?: boolean; family?: number },
    callback: (...args: unknown[]) => void,
) => void;

/** One lookup per policy, made on first use: a hook fan-out asks for it once per call. */
const lookups = new WeakMap<TargetPolicy, Lookup>();

/** A `lookup` for node:http that refuses addresses at connect time (no DNS rebinding gap). */
export function guardedLookup(policy: TargetPolicy): Lookup {
    let guarded = lookups.get(policy);
    if (!guarded) {
        guarded = (hostname, options, callback) => {
            lookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
                if (err) {
                    return callback(err);
                }
                const bad = addresses.find(a => !allowed(addressKind(a.address), policy));
                if (bad) {
                    return callback(refused(hostname, bad.address, addressKind(bad.address), policy));
                }
                if (options.all) {
                    return callback(null, addresses);
                }
                callback(null, addresses[0].address, addresses[0].family);
            });
        };
        lookups.set(policy, guarded);
    }
    return guarded;
}

/*
 * The agents of every outgoing request (URL hooks, httpGet): a connection per request, so each one
 * passes the guarded lookup (no `maxSockets`: a queued request would take a socket another request's
 * lookup let through), and no TLS session kept. A kept session goes out again in the next
 * ClientHello to the same host name: a receiver that moves its name to an address in this network
 * could make that carry bytes of its choice to a service there.
 */
const outgoing = {
    http: new HttpAgent({ keepAlive: false }),
    https: new HttpsAgent({ keepAlive: false, maxCachedSessions: 0 }),
};

/** The agent for an outgoing request to `url`: one per protocol, never one per call (a fan-out makes thousands). */
export function outgoingAgent(url: URL): HttpAgent {
    return url.protocol === 'https:' ? outgoing.https : outgoing.http;
}

/**
 * Every outgoing request starts here: `url` checked before connecting, each address the name resolves
 * to checked when connecting, on the agents above. `options` (made by the caller for this request,
 * with `url`'s host, port and path) gets the guard's `lookup` and `agent`, whatever it held.
 */
export function guardedRequest(
    url: URL,
    policy: TargetPolicy,
    options: RequestOptions,
    onResponse: (res: IncomingMessage) => void,
): ClientRequest {
    assertTargetAllowed(url, policy);
    options.lookup = guardedLookup(policy) as never;
    options.agent = outgoingAgent(url);
    return (url.protocol === 'https:' ? httpsRequest : httpRequest)(options, onResponse);
}

/** IP literals never go through `lookup`, so they are checked before connecting. */
function assertTargetAllowed(url: URL, policy: TargetPolicy): void {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        throw new HttpError('INVALID_PARAMS', `Only http and https URLs are allowed, not ${url.protocol}`);
    }
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const kind: AddressKind = isIP(host)
        ? addressKind(host)
        : host === 'localhost' || host.endsWith('.localhost')
          ? 'loopback'
          : 'other';
    if (!allowed(kind, policy)) {
        throw refused(url.hostname, host, kind, policy);
    }
}

/** What URL hooks may reach: this machine always, link-local only when allowed. */
export function hookPolicy(allowLinkLocal: boolean): TargetPolicy {
    return { loopback: true, linkLocal: allowLinkLocal, option: 'hooksAllowLinkLocal' };
}

/** What httpGet may reach: neither this machine nor link-local unless allowed. */
export function httpGetPolicy(allowLocal: boolean): TargetPolicy {
    return { loopback: allowLocal, linkLocal: allowLocal, option: 'httpGetAllowLocal' };
}
