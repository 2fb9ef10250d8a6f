import type { Command } from '../command-runtime/command';
import { BinaryBody } from '../command-runtime/command';
import { Page } from '../objects/listing-pages';
import { HttpError } from '../http/http-error';
import type { RawParams } from '../http/parse-params';
import type { Query } from '../http/query';
import type { RequestContext } from '../context/request-context';
import { runCommand } from '../command-runtime/run-command';
import { NO_STORE } from '../http/conditional';
import { Reply } from '../http/send';

function isJsonObject(value: unknown): value is RawParams {
    return !!value && typeof value === 'object' && !Array.isArray(value);
}

/** The parameters of a JSON body; none without a body. */
function bodyParams(body: unknown): RawParams | undefined {
    if (body === undefined) {
        return undefined;
    }
    if (!isJsonObject(body)) {
        throw new HttpError('INVALID_PARAMS', 'The body must be a JSON object of parameters');
    }
    return body;
}

/**
 * Runs a command for `/v1/command/<name>` and wraps the value in the 4.0.2 envelope. `path` is the
 * request's path, for the `Link` to a listing's next page.
 */
export function commandReply(
    cmd: Command,
    query: Query,
    body: unknown,
    ctx: RequestContext,
    path: string,
): Reply | Promise<Reply> {
    const fromBody = bodyParams(body);
    // as in 4.0.2 the body wins over the query and keeps its JSON types
    const params: RawParams = fromBody ? { ...query, ...fromBody } : query;
    // a JSON null from the body is a value, not a bare query flag
    const value = runCommand(cmd, params, ctx, fromBody && new Set(Object.keys(fromBody)));
    const wrap = (resolved: unknown): Reply => {
        const reply = resolved instanceof Page ? pageEnvelope(cmd, resolved, path, params) : envelope(cmd, resolved);
        if (cmd.noStore) {
            Object.assign(reply.headers, NO_STORE);
        }
        return reply;
    };
    return value instanceof Promise ? value.then(wrap) : wrap(value);
}

/**
 * A listing keeps the command's envelope and is written while serialised; the next page is a GET
 * of the same command with its cursor.
 */
function pageEnvelope(cmd: Command, page: Page, path: string, params: RawParams): Reply {
    const headers = page.linkHeader(path, params);
    return cmd.envelope === 'result'
        ? Reply.dictionary(page.items, headers, '{"error":null,"result":', '}')
        : Reply.dictionary(page.items, headers);
}

function envelope(cmd: Command, value: unknown): Reply {
    if (value instanceof Reply) {
        // a raw command that chose its own status (setStates: 207 when some ids failed)
        return value;
    }
    if (value instanceof BinaryBody) {
        // stored files (readFile) and fetched bodies (httpGet)
        return Reply.untrusted(value.data, value.mimeType);
    }
    switch (cmd.envelope) {
        case 'result':
            return Reply.json({ error: null, result: value });
        case 'results':
            return Reply.json({ error: null, results: value });
        default:
            return Reply.json(value);
    }
}

/** 4.0.2 clients of "results" commands find an empty `results` array next to the error. */
export function commandErrorExtra(cmd: Command): Record<string, unknown> | undefined {
    return cmd.envelope === 'results' ? { results: [] } : undefined;
}
