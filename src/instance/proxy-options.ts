/*
 * The values of the reverse-proxy options and of forwarded path and scheme, checked once: the
 * settings (config.ts) and the per-request reading (src/http/forwarded.ts) agree on them.
 */
import { isIP } from 'node:net';

const MAX_PREFIX = 512;
// path characters of RFC 3986 without `?`, `#`, `\`, quotes, `<>` and controls: safe inside a Link header
const PREFIX = /^(?:\/[A-Za-z0-9._~!$&'()*+,;=:@%-]+)+\/?$/;

/** An address or CIDR of `trustProxy`, or undefined when it is neither. */
export function parseTrustEntry(text: string): { address: string; bits?: number; family: 'ipv4' | 'ipv6' } | undefined {
    const [address, bits, extra] = text.trim().split('/');
    const version = isIP(address);
    if (!version || extra !== undefined) {
        return undefined;
    }
    const family = version === 4 ? 'ipv4' : 'ipv6';
    if (bits === undefined) {
        return { address, family };
    }
    const n = /^\d{1,3}$/.test(bits) ? Number(bits) : NaN;
    return n <= (version === 4 ? 32 : 128) ? { address, bits: n, family } : undefined;
}

/** A path prefix without trailing slash (`/` is `''`), or undefined for anything that could leave it or break a header. */
export function validPrefix(text: string | undefined): string | undefined {
    const prefix = text?.trim();
    if (prefix === '/') {
        return '';
    }
    if (
        !prefix ||
        prefix.length > MAX_PREFIX ||
        !PREFIX.test(prefix) ||
        /(^|\/)\.\.?(\/|$)/.test(prefix) ||
        /%(?![0-9a-f]{2})/i.test(prefix) ||
        /%2f|%5c|%2e/i.test(prefix)
    ) {
        return undefined;
    }
    return prefix.endsWith('/') ? prefix.slice(0, -1) : prefix;
}

export function validProto(text: string | undefined): 'http' | 'https' | undefined {
    const proto = text?.trim().toLowerCase();
    return proto === 'http' || proto === 'https' ? proto : undefined;
}

/** `publicUrl` as origin and prefix, or undefined when it is not a plain http(s) URL. */
export function parsePublicUrl(text: string): { origin: string; prefix: string } | undefined {
    let url: URL;
    try {
        url = new URL(text.trim());
    } catch {
        return undefined;
    }
    const prefix = validPrefix(url.pathname);
    // dot segments are resolved away by URL: a base written with them is a mistake to report, not to guess
    const dotted = /\/(?:\.|%2e){1,2}(?:\/|$)/i.test(text);
    if (
        !validProto(url.protocol.slice(0, -1)) ||
        url.username ||
        url.password ||
        url.search ||
        url.hash ||
        prefix === undefined ||
        text.includes('\\') ||
        dotted
    ) {
        return undefined;
    }
    return { origin: url.origin, prefix };
}
