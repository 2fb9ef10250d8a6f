/*
 * Reverse-proxy awareness. Only a peer listed in `trustProxy` may say who the client is and under
 * which origin and path it reached us (X-Forwarded-*, RFC 7239 Forwarded): anyone else could name
 * any address to escape its login damping, or any host to put into the URLs we hand out.
 */
import type { IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { parsePublicUrl, parseTrustEntry, validPrefix, validProto } from '../instance/proxy-options';

/** What a request looks like from outside; `origin`/`prefix` undefined: as the adapter sees it. */
export interface PublicView {
    /** The client's address: the peer's, or the first untrusted hop a trusted proxy names. */
    address: string;
    /** `https://home.example.org` when a trusted proxy or `publicUrl` names it. */
    origin?: string;
    /** The public path of the API root (`''` or `/iobroker/api`); it takes the place of the mount (`/rest-api`). */
    prefix?: string;
}

export interface Forwarding {
    view(req: IncomingMessage): PublicView;
}

const MAX_HOST = 255;
const HOST =
    /^(?:[a-z0-9_](?:[a-z0-9_-]{0,62}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,62}[a-z0-9_])?)*\.?|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/** A host (name or address literal, optional port) as a Host header may carry it, or undefined. */
export function validHost(text: string | undefined): string | undefined {
    const host = text?.trim();
    return host && host.length <= MAX_HOST && HOST.test(host) ? host.toLowerCase() : undefined;
}

export interface ProxyOptions {
    trustProxy: readonly string[];
    publicUrl: string;
}

/** One hop of X-Forwarded-For or a `for=` value: a plain address without brackets or port, or undefined. */
export function hopAddress(text: string): string | undefined {
    let hop = text.trim();
    if (hop.startsWith('[')) {
        const end = hop.indexOf(']');
        hop = end === -1 ? '' : hop.slice(1, end);
    } else if (/^\d+\.\d+\.\d+\.\d+:\d+$/.test(hop)) {
        hop = hop.slice(0, hop.indexOf(':'));
    }
    // a zone (`fe80::1%eth0`) names an interface of the proxy, not a client
    hop = hop.replace(/%.*$/, '');
    return isIP(hop) ? hop : undefined;
}

/**
 * RFC 7239: elements (one per proxy) of `key=value` pairs; values are tokens or quoted strings.
 * Undefined when the header cannot be read safely: an unterminated quote, or text after a closing
 * one, could hide the element a proxy appended behind what the client wrote itself.
 */
export function parseForwarded(header: string): Array<Record<string, string>> | undefined {
    const elements: Array<Record<string, string>> = [];
    let pairs: Record<string, string> = Object.create(null);
    const n = header.length;
    let i = 0;
    while (i <= n) {
        const next = header.slice(i).search(/[;,]/);
        const stop = next === -1 ? n : i + next;
        const eq = header.indexOf('=', i);
        if (eq !== -1 && eq < stop) {
            const key = header.slice(i, eq).trim().toLowerCase();
            let value = '';
            i = eq + 1;
            if (header[i] === '"') {
                for (i++; i < n && header[i] !== '"'; i++) {
                    value += header[i] === '\\' ? (header[++i] ?? '') : header[i];
                }
                if (i >= n) {
                    return undefined;
                }
                const after = header.slice(i + 1).search(/[;,]/);
                const end = after === -1 ? n : i + 1 + after;
                if (header.slice(i + 1, end).trim()) {
                    return undefined;
                }
                i = end;
            } else {
                value = header.slice(i, stop).trim();
                i = stop;
            }
            if (key && !(key in pairs)) {
                pairs[key] = value;
            }
        } else {
            // a pair without value: skipped
            i = stop;
        }
        if (i >= n || header[i] === ',') {
            elements.push(pairs);
            pairs = Object.create(null);
        }
        i++;
    }
    return elements.filter(e => Object.keys(e).length);
}

/**
 * The value the nearest proxy set: the last one. A proxy that appends to what the client sent (rather
 * than replacing it) would otherwise let the client's own value win.
 */
function nearest(header: string | string[] | undefined): string | undefined {
    const text = Array.isArray(header) ? header.join(',') : header;
    return text?.split(',').at(-1);
}

/** Whether the proxy options do anything: when not, nothing of this runs per request. */
export function createForwarding(options: ProxyOptions): Forwarding | undefined {
    const fixed = options.publicUrl ? parsePublicUrl(options.publicUrl) : undefined;
    const entries = options.trustProxy.map(parseTrustEntry).filter(e => e !== undefined);
    if (!fixed && !entries.length) {
        return undefined;
    }
    if (!entries.length) {
        // publicUrl alone: every request, no header read
        return { view: req => ({ address: req.socket.remoteAddress ?? 'unknown', ...fixed }) };
    }
    const trusted = new BlockList();
    for (const e of entries) {
        if (e.bits === undefined) {
            trusted.addAddress(e.address, e.family);
        } else {
            trusted.addSubnet(e.address, e.bits, e.family);
        }
    }
    const isTrusted = (address: string): boolean => {
        const version = isIP(address);
        // a socket already gone has no address
        return version !== 0 && trusted.check(address, version === 6 ? 'ipv6' : 'ipv4');
    };

    /** Walks the hops from the right past trusted ones; the index is the hop taken as the client. */
    function client(hops: string[], peer: string): { address: string; index: number } {
        let found = { address: peer, index: hops.length };
        for (let i = hops.length - 1; i >= 0; i--) {
            const hop = hopAddress(hops[i]);
            if (!hop) {
                // `unknown`, an obfuscated name or garbage: the trusted hop that passed it on is all we know
                break;
            }
            found = { address: hop, index: i };
            if (!isTrusted(hop)) {
                break;
            }
        }
        return found;
    }

    return {
        view(req) {
            const peer = req.socket.remoteAddress ?? 'unknown';
            if (!isTrusted(peer)) {
                return { address: peer };
            }
            const { headers } = req;
            const xff = headers['x-forwarded-for'];
            let address = peer;
            let proto = validProto(nearest(headers['x-forwarded-proto']));
            let host = validHost(nearest(headers['x-forwarded-host']));
            if (xff !== undefined) {
                address = client(String(xff).split(','), peer).address;
            } else if (typeof headers.forwarded === 'string') {
                // unreadable: as if the proxy had sent nothing
                const elements = parseForwarded(headers.forwarded) ?? [];
                const found = client(
                    elements.map(e => e.for ?? ''),
                    peer,
                );
                address = found.address;
                // proto and host of the proxy that saw the client, never of what the client itself sent before it
                const element = elements[Math.min(found.index, elements.length - 1)] ?? {};
                proto ??= validProto(element.proto);
                host ??= validHost(element.host);
            }
            if (fixed) {
                return { address, ...fixed };
            }
            const prefix = validPrefix(nearest(headers['x-forwarded-prefix']));
            const scheme = proto ?? ((req.socket as TLSSocket).encrypted ? 'https' : 'http');
            const origin = proto || host ? (host ??= validHost(headers.host)) && `${scheme}://${host}` : undefined;
            return { address, origin, prefix };
        },
    };
}
