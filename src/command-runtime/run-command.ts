import { isAllowed } from '../access/rules';
import type { CompiledScope } from '../access/scope';
import type { Command } from './command';
import { HttpError } from '../http/http-error';
import { fromAdapterError } from '../storage/adapter-errors';
import { assertInReadScope, assertInWriteScope } from '../access/read-checks';
import { compiledFor, parseParams, type RawParams } from '../http/parse-params';
import { writingContext, type RequestContext } from '../context/request-context';

/**
 * The whole command pipeline: permission, then parameters, then the handler. Answers without a
 * promise when the handler does (reads served from the caches).
 */
export function runCommand(cmd: Command, raw: RawParams, ctx: RequestContext, bodyKeys?: ReadonlySet<string>): unknown {
    const { token } = ctx.acl;
    if (!isAllowed(ctx.acl, cmd.permission) || (token && !tokenMayCall(token.scope, cmd))) {
        throw new HttpError('FORBIDDEN', 'permissionError');
    }
    const params = parseParams(compiledFor(cmd.params), raw, bodyKeys);
    if (token) {
        ctx = scopedContext(cmd, params, ctx);
    }
    let answer: unknown;
    try {
        answer = cmd.handler(params, ctx);
    } catch (err) {
        throw fromAdapterError(err);
    }
    return answer instanceof Promise ? answer.catch(err => Promise.reject(fromAdapterError(err))) : answer;
}

/** An account command would let a token create another way in, or outlive its revocation. */
function tokenMayCall(scope: CompiledScope | undefined, cmd: Command): boolean {
    return !cmd.account && (!scope || scope.command(cmd.name));
}

/** An API token's check of the `id` a command acts on; a writing command may read what it may write. */
function scopedContext(cmd: Command, params: Record<string, unknown>, ctx: RequestContext): RequestContext {
    const { id } = params;
    if (typeof id !== 'string') {
        return cmd.effect === 'write' ? writingContext(ctx) : ctx;
    }
    if (cmd.effect === 'read') {
        assertInReadScope(ctx, id);
        return ctx;
    }
    assertInWriteScope(ctx, id, { id }, !!cmd.recursive?.(params));
    return writingContext(ctx);
}

/** Compiles every schema at start, so no request pays for it. */
export function precompile(commands: Iterable<Command>): void {
    for (const cmd of commands) {
        compiledFor(cmd.params);
    }
}
