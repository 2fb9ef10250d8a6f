import { isAllowed } from './acl';
import type { Command } from './command';
import { HttpError } from './http-error';
import { fromAdapterError } from './lib/adapter-errors';
import { compiledFor, parseParams, type RawParams } from './parse-params';
import type { RequestContext } from './request-context';

/**
 * The whole command pipeline: permission, then parameters, then the handler. Answers without a
 * promise when the handler does (reads served from the caches).
 */
export function runCommand(cmd: Command, raw: RawParams, ctx: RequestContext, bodyKeys?: ReadonlySet<string>): unknown {
    if (!isAllowed(ctx.acl, cmd.permission)) {
        throw new HttpError('FORBIDDEN', 'permissionError');
    }
    const params = parseParams(compiledFor(cmd.params), raw, bodyKeys);
    let answer: unknown;
    try {
        answer = cmd.handler(params as never, ctx);
    } catch (err) {
        throw fromAdapterError(err);
    }
    return answer instanceof Promise ? answer.catch(err => Promise.reject(fromAdapterError(err))) : answer;
}

/** Compiles every schema at start, so no request pays for it. */
export function precompile(commands: Iterable<Command>): void {
    for (const cmd of commands) {
        compiledFor(cmd.params);
    }
}
