import { Type } from '@sinclair/typebox';
import { paramsError } from '../parse-params';
import { Reply } from '../send';

/*
 * Pages and projections of the big listings (`/v1/states`, `/v1/objects`). Without `limit` and
 * `fields` the answer is exactly what it always was. With `limit` the ids come in ascending order
 * and the next page is announced in a `Link: <...>; rel="next"` header whose cursor is the last id
 * of the page: a walk never shows an id twice and never skips one that existed throughout.
 */

export const MAX_PAGE = 10_000;

/** The fields a state has; `fields` may pick from these. */
export const STATE_FIELDS = ['val', 'ack', 'ts', 'lc', 'from', 'q', 'user', 'c', 'expire'] as const;

/** Top-level members of an object a projection may start from. */
const OBJECT_ROOTS = ['_id', 'type', 'common', 'native', 'acl', 'from', 'user', 'ts', 'enums'];

/** The paging parameters of a listing route or command, declared once. */
export function pageParams(kind: 'state' | 'object') {
    const what = kind === 'state' ? 'states' : 'objects';
    return {
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE, description: `A page of at most this many ${what}, in id order; the next page is in the Link header` })),
        cursor: Type.Optional(Type.String({ description: 'The next page, as the Link header names it' })),
        fields: Type.Optional(
            Type.String({
                description:
                    kind === 'state'
                        ? `Only these fields of each state, e.g. val,ack,ts (${STATE_FIELDS.join(', ')})`
                        : 'Only these members of each object, e.g. common.name,common.role,type',
            }),
        ),
    };
}

/** One page of a listing and the cursor of the next one (none on the last page). */
export class Page {
    constructor(
        readonly items: Record<string, unknown>,
        readonly next?: string,
    ) {}

    /** The `Link` header for the next page: `url` with its cursor replaced. */
    linkHeader(url: string, params?: Record<string, unknown>): Record<string, string> | undefined {
        if (this.next === undefined) {
            return undefined;
        }
        const link = new URL(url, 'http://x');
        for (const [name, value] of Object.entries(params ?? {})) {
            if (value !== undefined && value !== null) {
                link.searchParams.set(name, typeof value === 'string' ? value : JSON.stringify(value));
            }
        }
        link.searchParams.set('cursor', cursorText(this.next));
        return { Link: `<${link.pathname}${link.search}>; rel="next"` };
    }
}

export interface Listing {
    limit?: number;
    after?: string;
    fields?: string[];
}

function cursorText(id: string): string {
    return Buffer.from(JSON.stringify({ after: id }), 'utf8').toString('base64url');
}

function cursorId(cursor: string): string {
    try {
        const after = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')).after;
        if (typeof after === 'string') {
            return after;
        }
    } catch {
        // reported below
    }
    throw paramsError([{ param: 'cursor', problem: 'is not a cursor of this server (take it from the Link header)' }], ['cursor']);
}

/** `limit`, `cursor` and `fields` of a listing request (query text or parsed params); `kind` says which fields exist. */
export function listingParams(query: Record<string, unknown>, kind: 'state' | 'object'): Listing {
    const listing: Listing = {};
    if (query.limit !== undefined) {
        const limit = Number(query.limit);
        if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) {
            throw paramsError([{ param: 'limit', problem: `must be an integer from 1 to ${MAX_PAGE}` }], ['limit']);
        }
        listing.limit = limit;
    }
    if (query.cursor !== undefined && query.cursor !== null) {
        if (listing.limit === undefined) {
            throw paramsError([{ param: 'cursor', problem: 'needs limit' }], ['cursor', 'limit']);
        }
        listing.after = cursorId(String(query.cursor));
    }
    if (query.fields !== undefined) {
        const fields = String(query.fields ?? '')
            .split(',')
            .map(f => f.trim())
            .filter(Boolean);
        const unknown = unknownFields(fields, kind);
        if (!fields.length || unknown.length) {
            throw paramsError([{ param: 'fields', problem: unknown.length ? `unknown: ${unknown.join(', ')}` : 'names no field' }], ['fields']);
        }
        listing.fields = fields;
    }
    return listing;
}

/** The fields no state has (`state`), or the paths that start nowhere in an object (`object`). */
export function unknownFields(fields: string[], kind: 'state' | 'object'): string[] {
    const known = (field: string): boolean =>
        kind === 'state' ? (STATE_FIELDS as readonly string[]).includes(field) : OBJECT_ROOTS.includes(field.split('.')[0]) && !field.split('.').some(part => !part);
    return fields.filter(f => !known(f));
}

/** Only the named fields (dotted paths) of a state or object; missing ones are left out. */
export function projection(value: unknown, fields: string[]): unknown {
    if (!value || typeof value !== 'object') {
        return value;
    }
    const out: Record<string, unknown> = {};
    for (const field of fields) {
        const path = field.split('.');
        let source: unknown = value;
        for (const part of path) {
            source = source && typeof source === 'object' ? (source as Record<string, unknown>)[part] : undefined;
        }
        if (source === undefined) {
            continue;
        }
        let target = out;
        for (const part of path.slice(0, -1)) {
            target = (target[part] ??= {}) as Record<string, unknown>;
        }
        target[path[path.length - 1]] = source;
    }
    return out;
}

/** Without `limit`/`fields` the listing itself; otherwise the page in id order with the projection. */
export function pageOf<T>(all: Record<string, T>, listing: Listing): Record<string, T> | Page {
    if (listing.limit === undefined && !listing.fields) {
        return all;
    }
    let ids = Object.keys(all);
    let next: string | undefined;
    if (listing.limit !== undefined) {
        ids.sort();
        const after = listing.after;
        const from = after === undefined ? 0 : ids.findIndex(id => id > after);
        ids = from === -1 ? [] : ids.slice(from, from + listing.limit + 1);
        if (ids.length > listing.limit) {
            ids = ids.slice(0, listing.limit);
            next = ids[ids.length - 1];
        }
    }
    const items: Record<string, unknown> = {};
    for (const id of ids) {
        items[id] = listing.fields ? projection(all[id], listing.fields) : all[id];
    }
    return new Page(items, next);
}

/** For listing commands: the page their parsed `limit`/`cursor`/`fields` ask for, or everything. */
export function commandPage<T>(all: Record<string, T>, params: Record<string, unknown>, kind: 'state' | 'object'): Record<string, T> | Page {
    return pageOf(all, listingParams(params, kind));
}

/**
 * The answer of a listing route: unchanged without `limit`/`fields`; otherwise the page and a
 * `Link` header to the next one. `url` is the request's path and query.
 */
export function listingReply<T>(all: Record<string, T>, listing: Listing, url: string): Record<string, T> | Reply {
    const page = pageOf(all, listing);
    return page instanceof Page ? Reply.json(page.items, 200, page.linkHeader(url)) : page;
}
