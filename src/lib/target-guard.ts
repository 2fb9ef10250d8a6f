import { lookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { HttpError } from '../http-error';

/*
 * Outgoing requests (httpGet, URL hooks) must not reach this machine or cloud metadata services
 * unless the owner allows it: loopback, link-local and unspecified addresses are refused.
 * Private LAN ranges stay allowed, that is where home devices live.
 */
export function isLocalAddress(address: string): boolean {
    const ip = embeddedIPv4(address.toLowerCase()) ?? address.toLowerCase();
    if (isIP(ip) === 4) {
        const [a, b] = ip.split('.').map(Number);
        return a === 127 || a === 0 || (a === 169 && b === 254);
    }
    return ip === '::1' || ip === '::' || /^fe[89ab]/.test(ip) || ip.startsWith('fd00:ec2:');
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

function refused(host: string, address: string): HttpError {
    return new HttpError('FORBIDDEN', `Target ${host} (${address}) is a local address; allow local targets in the configuration to use it`);
}

/** A `lookup` for node:http that refuses local addresses at connect time (no DNS rebinding gap). */
export function guardedLookup(allowLocal: boolean) {
    return (hostname: string, options: { all?: boolean; family?: number }, callback: (...args: unknown[]) => void): void => {
        lookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
            if (err) {
                return callback(err);
            }
            const bad = allowLocal ? undefined : addresses.find(a => isLocalAddress(a.address));
            if (bad) {
                return callback(refused(hostname, bad.address));
            }
            if (options.all) {
                return callback(null, addresses);
            }
            callback(null, addresses[0].address, addresses[0].family);
        });
    };
}

/** IP literals never go through `lookup`, so they are checked before connecting. */
export function assertTargetAllowed(url: URL, allowLocal: boolean): void {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        throw new HttpError('INVALID_PARAMS', `Only http and https URLs are allowed, not ${url.protocol}`);
    }
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (!allowLocal && (isIP(host) ? isLocalAddress(host) : host === 'localhost' || host.endsWith('.localhost'))) {
        throw refused(url.hostname, host);
    }
}
