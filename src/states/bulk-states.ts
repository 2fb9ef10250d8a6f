import { HttpError, toErrorBody } from '../http/http-error';
import type { Precondition } from '../http/conditional';
import type { RequestContext } from '../context/request-context';
import { projection, STATE_FIELDS, unknownFields } from '../objects/listing-pages';
import { patchState } from './states';

/** The most ids one bulk request may name. */
export const MAX_BULK_IDS = 10_000;
/** Writes and reads of one bulk request under way at once: enough to overlap round trips, few enough not to flood the DB. */
const PARALLEL = 16;

export type BulkAnswer = Record<string, Record<string, unknown>>;

function failure(err: unknown): Record<string, unknown> {
    const { status, body } = toErrorBody(err);
    // a failed ifMatch names the current version (only to a caller that may read it)
    const etag = err instanceof HttpError ? err.headers?.ETag : undefined;
    return etag ? { error: body.error, status, etag } : { error: body.error, status };
}

/** `ifMatch` of an entry in state form: the write happens only if the stored version has this ETag. */
function entryPrecondition(state: Record<string, unknown>): {
    state: Record<string, unknown>;
    precondition?: Precondition;
} {
    if (!('ifMatch' in state)) {
        return { state };
    }
    const { ifMatch, ...rest } = state;
    return { state: rest, precondition: { ifMatch: typeof ifMatch === 'string' ? ifMatch : '' } };
}

/** Runs `work` for every id, PARALLEL at a time. */
async function eachLimited(ids: string[], work: (id: string) => Promise<void>): Promise<void> {
    let next = 0;
    const worker = async (): Promise<void> => {
        while (next < ids.length) {
            await work(ids[next++]);
        }
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL, ids.length) }, worker));
}

/** The body of a bulk request: a JSON object of at most MAX_BULK_IDS entries. */
export function bulkEntries(body: unknown, what: string): Array<[string, unknown]> {
    if (!body || typeof body !== 'object' || Array.isArray(body)) {
        throw new HttpError(
            'INVALID_PARAMS',
            `${what} must be a JSON object {"<id>": <value or {val, ack, ...}>, ...}`,
        );
    }
    const entries = Object.entries(body);
    assertBulkSize(entries.length);
    return entries;
}

/** 413 beyond MAX_BULK_IDS ids. */
export function assertBulkSize(count: number): void {
    if (count > MAX_BULK_IDS) {
        throw new HttpError('PAYLOAD_TOO_LARGE', `At most ${MAX_BULK_IDS} ids per request, not ${count}`);
    }
}

/**
 * Writes every entry as a single PATCH would (id or name, conversion by the state's type, the caller's
 * ACL); one failing id never stops the others. Answers `{id: {val, ack}}` or `{id: {error, status}}`.
 */
export async function writeStates(
    ctx: RequestContext,
    entries: Array<[string, unknown]>,
): Promise<{ answer: BulkAnswer; failed: number }> {
    const answer: BulkAnswer = {};
    const values = new Map(entries);
    let failed = 0;
    await eachLimited([...values.keys()], async key => {
        const given = values.get(key);
        try {
            // a state object when it carries `val`, otherwise the value itself (also an object for json states)
            const entry = (
                given && typeof given === 'object' && !Array.isArray(given) && 'val' in given ? given : { val: given }
            ) as Record<string, unknown>;
            const { state, precondition } = entryPrecondition(entry);
            const written = await patchState(ctx, key, state, 0, precondition);
            answer[key] = { val: written.val, ack: !!written.ack };
        } catch (err) {
            failed++;
            answer[key] = failure(err);
        }
    });
    return { answer: inOrder([...values.keys()], answer), failed };
}

/** The answer's keys in the order the request named them (the work finished in any order). */
function inOrder(keys: string[], answer: BulkAnswer): BulkAnswer {
    return Object.fromEntries(keys.map(key => [key, answer[key]]));
}

/** Checks `fields` against the fields a state has (422 naming the unknown ones). */
export function stateFields(fields: unknown): string[] | undefined {
    if (fields === undefined) {
        return undefined;
    }
    if (!Array.isArray(fields) || fields.some(f => typeof f !== 'string')) {
        throw new HttpError('INVALID_PARAMS', 'fields must be an array of field names', {
            context: { details: [{ param: 'fields', problem: 'must be an array of strings' }] },
        });
    }
    const unknown = unknownFields(fields, 'state');
    if (unknown.length) {
        throw new HttpError('INVALID_PARAMS', `Unknown fields: ${unknown.join(', ')}`, {
            context: {
                details: [
                    { param: 'fields', problem: `unknown: ${unknown.join(', ')}; known: ${STATE_FIELDS.join(', ')}` },
                ],
            },
        });
    }
    return fields as string[];
}

/** Reads the states of a list of ids with the caller's rights; per id the state, or `{error, status}`. */
export async function readStatesById(
    ctx: RequestContext,
    ids: string[],
    fields: string[] | undefined,
): Promise<BulkAnswer> {
    const answer: BulkAnswer = {};
    const unique = [...new Set(ids)];
    await eachLimited(unique, async id => {
        try {
            const state = await ctx.data.readState(id);
            if (!state) {
                throw new HttpError('NOT_FOUND', 'not found', { context: { id } });
            }
            answer[id] = (fields ? projection(state, fields) : { ...state }) as Record<string, unknown>;
        } catch (err) {
            answer[id] = failure(err);
        }
    });
    return inOrder(unique, answer);
}
