import { HttpError } from '../http/http-error';

/*
 * js-controller reports failures only as message strings, so this is the single place where a
 * message decides the status. Everything else in the code throws HttpError directly.
 */
const CLIENT_MISTAKES = [
    /needs to be of type/,
    /is empty/,
    /is not a valid/,
    /is not an object of type "meta"/,
    /invalid id/i,
    /forbidden properties/,
    /has the wrong type/,
    /contains no properties/,
    /has to be/,
    /Cannot find (view|search)/,
    /^(null|no) object$/,
    /invalid parameter/i,
    /is invalid/i,
    /needs to be an object/,
    /Invalid characters/,
    /^not deletable$/,
    /belongs to no group/,
];

export function fromAdapterError(err: unknown, context: Record<string, unknown> = {}): HttpError {
    if (err instanceof HttpError) {
        return err;
    }
    const message = err instanceof Error ? err.message : typeof err === 'string' ? err : 'Internal error';
    if (message.includes('permissionError')) {
        return new HttpError('FORBIDDEN', 'permissionError', { context });
    }
    if (message === 'Not exists' || message.endsWith('not found') || message === 'Not found') {
        return new HttpError('NOT_FOUND', message, { context });
    }
    if (message === 'DB closed' || message.includes('Connection is closed')) {
        return new HttpError('UNAVAILABLE', 'Database not connected', { context, headers: { 'Retry-After': '5' } });
    }
    if (CLIENT_MISTAKES.some(re => re.test(message))) {
        return new HttpError('INVALID_PARAMS', message, { context });
    }
    // the original stays the cause: an error report shows where the code failed, not where it was wrapped
    return Object.assign(new HttpError('INTERNAL', message, { context }), { cause: err });
}

/**
 * The adapter call's promise with its failure turned into an HttpError. A rejection handler rather
 * than an async function: every state write and cache miss passes here, and one promise is cheaper.
 */
export function adapterCall<T>(promise: Promise<T>, context?: Record<string, unknown>): Promise<T> {
    return promise.then(undefined, (err: unknown) => {
        throw fromAdapterError(err, context);
    });
}
