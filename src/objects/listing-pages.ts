import { Type } from '@sinclair/typebox';
import { QUERY_CREDENTIALS } from '../auth/authenticate';
import { paramsError } from '../http/parse-params';
import { firstAfter, type ListingWalks } from './listing-walks';
import { Reply } from '../http/send';

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

/** Top-level members of a device (`/v1/devices`) a projection may start from. */
const DEVICE_ROOTS = ['id', 'name', 'type', 'rooms', 'functions', 'states'];

/** What a listing lists: its projections start from the members of these. */
export type ListingKind = 'state' | 'object' | 'device';

/** The paging parameters of a listing route or command, declared once. */
export function pageParams(kind: ListingKind) {
    const what = `${kind}s`;
    return {
        limit: Type.Optional(
            Type.Integer({
                minimum: 1,
                maximum: MAX_PAGE,
                description: `A page of at most this many ${what}, in id order; the next page is in the Link header`,
            }),
        ),
        cursor: Type.Optional(Type.String({ description: 'The next page, as the Link header names it' })),
        fields: Type.Optional(
            Type.String({
                description:
                    kind === 'state'
                        ? `Only these fields of each state, e.g. val,ack,ts (${STATE_FIELDS.join(', ')})`
                        : kind === 'device'
                          ? `Only these members of each device, e.g. name,type,states.ON.val (${DEVICE_ROOTS.join(', ')})`
                          : 'Only these members of each object, e.g. common.name,common.role,type',
            }),
        ),
    };
}

/** One page of a listing and the cursor of the next one (none on the last page). */
export class Page {
    constructor(
        readonly items: Record<string, unknown>,
        readonly next?: Cursor,
    ) {}

    /** The `Link` header for the next page: `url` with its cursor replaced, without query credentials. */
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
        // a Link ends up in logs, proxies and browser history: the client sends its credentials again itself
        for (const name of QUERY_CREDENTIALS) {
            link.searchParams.delete(name);
        }
        link.searchParams.set('cursor', cursorText(this.next));
        return { Link: `<${link.pathname}${link.search}>; rel="next"` };
    }
}

export interface Listing {
    limit?: number;
    cursor?: Cursor;
    fields?: string[];
}

/** Where the next page starts: after this id, in the kept ids of this walk if it is still there. */
export interface Cursor {
    after: string;
    walk?: string;
}

function cursorText(cursor: Cursor): string {
    return Buffer.from(JSON.stringify(cursor), 'utf8').toString('base64url');
}

function cursorOf(text: string): Cursor {
    try {
        const { after, walk } = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
        if (typeof after === 'string' && (walk === undefined || typeof walk === 'string')) {
            return { after, walk };
        }
    } catch {
        // reported below
    }
    throw paramsError(
        [{ param: 'cursor', problem: 'is not a cursor of this server (take it from the Link header)' }],
        ['cursor'],
    );
}

/** `limit`, `cursor` and `fields` of a listing request (query text or parsed params); `kind` says which fields exist. */
export function listingParams(query: Record<string, unknown>, kind: ListingKind): Listing {
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
        listing.cursor = cursorOf(String(query.cursor));
    }
    if (query.fields !== undefined) {
        const fields = String(query.fields ?? '')
            .split(',')
            .map(f => f.trim())
            .filter(Boolean);
        const unknown = unknownFields(fields, kind);
        if (!fields.length || unknown.length) {
            throw paramsError(
                [{ param: 'fields', problem: unknown.length ? `unknown: ${unknown.join(', ')}` : 'names no field' }],
                ['fields'],
            );
        }
        listing.fields = fields;
    }
    return listing;
}

/** The fields no state has (`state`), or the paths that start nowhere in an object or a device. */
export function unknownFields(fields: string[], kind: ListingKind): string[] {
    const roots = kind === 'device' ? DEVICE_ROOTS : OBJECT_ROOTS;
    const known = (field: string): boolean =>
        kind === 'state'
            ? (STATE_FIELDS as readonly string[]).includes(field)
            : roots.includes(field.split('.')[0]) && !field.split('.').some(part => !part);
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

/** Where a listing comes from: all of it, or some ids read now; both only what the caller may read. */
export interface ListingSource {
    all(): Promise<Record<string, unknown>> | Record<string, unknown>;
    some(ids: string[]): Promise<Record<string, unknown>>;
}

/**
 * The page a listing request asks for. Without `limit`/`fields` the whole listing; with `limit` the
 * ids in ascending order. The first page reads everything and keeps the remaining ids for the walk
 * (src/objects/listing-walks.ts), later pages read only theirs. `walkKey` says who lists what.
 */
export async function listingPage(
    walks: ListingWalks,
    walkKey: string,
    listing: Listing,
    source: ListingSource,
): Promise<Page> {
    const { limit, cursor, fields } = listing;
    if (limit !== undefined && cursor?.walk !== undefined) {
        const kept = walks.next(cursor.walk, walkKey, cursor.after, limit);
        if (kept) {
            const found = kept.ids.length ? await source.some(kept.ids) : {};
            const ids = kept.ids.filter(id => found[id] !== undefined);
            return new Page(
                itemsOf(found, ids, fields),
                kept.more ? { after: kept.ids[kept.ids.length - 1], walk: cursor.walk } : undefined,
            );
        }
    }
    const all = await source.all();
    if (limit === undefined) {
        return new Page(fields ? itemsOf(all, Object.keys(all), fields) : all);
    }
    const sorted = Object.keys(all).sort();
    const from = cursor === undefined ? 0 : firstAfter(sorted, cursor.after);
    const ids = sorted.slice(from, from + limit);
    if (from + limit >= sorted.length) {
        return new Page(itemsOf(all, ids, fields));
    }
    const after = ids[ids.length - 1];
    // a walk begins (or one that was lost goes on): keep the ids still to come
    const walk = walks.start(walkKey, sorted.slice(from + limit));
    return new Page(itemsOf(all, ids, fields), { after, walk });
}

function itemsOf(from: Record<string, unknown>, ids: string[], fields: string[] | undefined): Record<string, unknown> {
    const items: Record<string, unknown> = {};
    for (const id of ids) {
        items[id] = fields ? projection(from[id], fields) : from[id];
    }
    return items;
}

/** What a listing needs of the request context: the walks, and who walks. */
export interface ListingCaller {
    walks: ListingWalks;
    owner: string;
    ownerOnly: boolean;
}

/** A walk belongs to the caller who began it: what is listed, by whom (an API token apart from its user's login), with which rule. */
function callerWalk(ctx: ListingCaller, walkKey: string): string {
    return `${walkKey}\n${ctx.owner}\n${ctx.ownerOnly}`;
}

/** For listing commands: the page their parsed `limit`/`cursor`/`fields` ask for, or everything. */
export function commandPage(
    ctx: ListingCaller,
    walkKey: string,
    params: Record<string, unknown>,
    kind: 'state' | 'object',
    source: ListingSource,
): Promise<Page> {
    return listingPage(ctx.walks, callerWalk(ctx, walkKey), listingParams(params, kind), source);
}

/**
 * The answer of a listing route: unchanged without `limit`/`fields`; otherwise the page and a
 * `Link` header to the next one. `url` is the request's path and query. Large answers are written
 * while they are serialised.
 */
export async function listingReply(
    ctx: ListingCaller,
    walkKey: string,
    listing: Listing,
    url: string,
    source: ListingSource,
): Promise<Reply> {
    const page = await listingPage(ctx.walks, callerWalk(ctx, walkKey), listing, source);
    // tagged by its bytes: a listing has no cheaper version (see docs/en/conditional-requests.md)
    return Reply.dictionary(page.items, page.linkHeader(url)).validated('body');
}
