import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { HttpError } from './http-error';

/*
 * Conditional requests (RFC 9110 §13), in one place: routes say what version an answer is (a
 * validator); this file writes the validator headers, answers 304 to a reader that has it already,
 * and refuses a write whose precondition does not hold (412). Nothing here runs for a request
 * without If-* headers beyond writing the headers.
 */

/** The version of an answer: an ETag (quoted), and the time of the last change where one exists (ms). */
export interface Validator {
    etag: string;
    lastModified?: number;
    /** `lastModified` as an HTTP date, when made ahead (a validator kept for many answers). */
    lastModifiedText?: string;
}

/** An HTTP date of a time in ms, or undefined for none. */
export function httpDate(ms: number | undefined): string | undefined {
    return ms !== undefined && Number.isFinite(ms) && ms > 0 ? new Date(ms).toUTCString() : undefined;
}

/** Every API answer says how it may be cached: kept, but asked again each time. */
export const NO_CACHE = 'no-cache';
/** Tokens and secrets: never kept by a browser or proxy. */
export const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };
/** Assets whose path names their version: they never change under that path. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';

/** A tag of a body: the first 128 bits of its SHA-1 (native, fast); for answers that have no cheaper version. */
export function bodyTag(body: string | Buffer): string {
    return `"b${createHash('sha1').update(body).digest('base64url').slice(0, 22)}"`;
}

const kept = new WeakMap<object, Validator>();

/**
 * The validator of an answer made from a cached value (a state or an object the caches hand out
 * until it changes), made once per value instead of once per answer. Only for values nobody
 * changes in place.
 */
export function keptValidator(value: object, make: () => Validator): Validator {
    let validator = kept.get(value);
    if (!validator) {
        validator = make();
        kept.set(value, validator);
    }
    return validator;
}

/** The tag of a cached value's bytes as a JSON answer sends them. */
export function cachedValueValidator(value: object): Validator {
    return keptValidator(value, () => ({ etag: bodyTag(JSON.stringify(value)) }));
}

/** 32-bit FNV-1a of a short text: enough to tell the small varying fields of a state apart. */
export function shortHash(text: string): string {
    let hash = 0x811c9dc5;
    for (let i = 0; i < text.length; i++) {
        hash ^= text.charCodeAt(i);
        hash = Math.imul(hash, 0x01000193);
    }
    return (hash >>> 0).toString(36);
}

export function validatorHeaders(validator: Validator, headers: Record<string, string | number>): void {
    headers.ETag = validator.etag;
    const date = validator.lastModifiedText ?? httpDate(validator.lastModified);
    if (date !== undefined) {
        headers['Last-Modified'] = date;
    }
}

/** The opaque part of a tag (`W/"x"` and `"x"` both give `"x"`), for the weak comparison. */
function opaque(tag: string): string {
    return tag.startsWith('W/') ? tag.slice(2) : tag;
}

/** The tags of an If-Match / If-None-Match list, `*`, or none for a value that is no list of tags. */
function tagsOf(header: string): string[] | '*' {
    const text = header.trim();
    if (text === '*') {
        return '*';
    }
    return text.match(/(?:W\/)?"[^"]*"/g) ?? [];
}

function headerText(value: string | string[] | undefined): string | undefined {
    return Array.isArray(value) ? value.join(',') : value;
}

/**
 * Whether a GET or HEAD is answered 304: If-None-Match (weak comparison) when sent, otherwise
 * If-Modified-Since against the last change, in whole seconds as HTTP dates have them.
 */
export function notModified(headers: IncomingHttpHeaders, validator: Validator): boolean {
    const noneMatch = headerText(headers['if-none-match']);
    if (noneMatch !== undefined) {
        const tags = tagsOf(noneMatch);
        return tags === '*' || tags.some(tag => opaque(tag) === opaque(validator.etag));
    }
    const since = headers['if-modified-since'];
    if (since === undefined || validator.lastModified === undefined) {
        return false;
    }
    const time = Date.parse(since);
    return Number.isFinite(time) && Math.floor(validator.lastModified / 1000) * 1000 <= time;
}

/** Whether a write request names a precondition at all: the fast path of plain writes checks only this. */
export function hasPrecondition(headers: IncomingHttpHeaders): boolean {
    return headers['if-match'] !== undefined || headers['if-none-match'] !== undefined;
}

export interface Precondition {
    /** If-Match: one of these tags (strong comparison), or `*`: any current version. */
    ifMatch?: string;
    /** If-None-Match: `*` only (create when absent); a tag list refuses a write of that version. */
    ifNoneMatch?: string;
}

export function preconditionOf(headers: IncomingHttpHeaders): Precondition | undefined {
    if (!hasPrecondition(headers)) {
        return undefined;
    }
    return { ifMatch: headerText(headers['if-match']), ifNoneMatch: headerText(headers['if-none-match']) };
}

/**
 * Throws 412 unless the precondition holds for the current version (`undefined`: nothing stored).
 * The answer names the current ETag, so the client can read again and retry; the caller has
 * already been checked for its right to read it.
 */
export function assertPrecondition(
    precondition: Precondition | undefined,
    current: string | undefined,
    context: Record<string, unknown> = {},
): void {
    if (!precondition) {
        return;
    }
    const { ifMatch, ifNoneMatch } = precondition;
    let holds = true;
    if (ifMatch !== undefined) {
        const tags = tagsOf(ifMatch);
        // strong comparison: a weak tag never matches a write precondition
        holds = current !== undefined && (tags === '*' || tags.some(tag => !tag.startsWith('W/') && tag === current));
    }
    if (holds && ifNoneMatch !== undefined) {
        const tags = tagsOf(ifNoneMatch);
        holds = current === undefined || (tags !== '*' && !tags.some(tag => opaque(tag) === opaque(current)));
    }
    if (!holds) {
        throw new HttpError('PRECONDITION_FAILED', 'Precondition failed: the stored version differs', {
            context,
            headers: current ? { ETag: current } : {},
        });
    }
}
