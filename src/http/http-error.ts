/** One error class for every failure a client can see; the code decides the default status. */
export const CODE_STATUS = {
    BAD_REQUEST: 400,
    UNAUTHORIZED: 401,
    FORBIDDEN: 403,
    NOT_FOUND: 404,
    METHOD_NOT_ALLOWED: 405,
    TIMEOUT_408: 408,
    CONFLICT: 409,
    GONE: 410,
    PRECONDITION_FAILED: 412,
    PAYLOAD_TOO_LARGE: 413,
    UNSUPPORTED_MEDIA_TYPE: 415,
    INVALID_PARAMS: 422,
    TOO_MANY_REQUESTS: 429,
    INTERNAL: 500,
    NOT_IMPLEMENTED: 501,
    BAD_GATEWAY: 502,
    UNAVAILABLE: 503,
    TIMEOUT: 504,
} as const;

export type ErrorCode = keyof typeof CODE_STATUS;

export interface ParamProblem {
    param: string;
    problem: string;
}

export interface HttpErrorOptions {
    /** Extra members of the JSON body, e.g. `{ id }` as 4.0.2 clients expect. */
    context?: Record<string, unknown>;
    /** Only where the code's status is not the one (4.0.2's 501 for a write-and-wait timeout). */
    status?: number;
    headers?: Record<string, string>;
}

export class HttpError extends Error {
    readonly status: number;
    readonly context: Record<string, unknown>;
    readonly headers?: Record<string, string>;

    constructor(
        readonly code: ErrorCode,
        message: string,
        { context = {}, status, headers }: HttpErrorOptions = {},
    ) {
        super(message);
        this.status = status ?? CODE_STATUS[code];
        this.context = context;
        this.headers = headers;
    }
}

/** The JSON body of an error answer: always a top-level `error` string, never a stack. */
export function toErrorBody(err: unknown): { status: number; body: Record<string, unknown> } {
    if (err instanceof HttpError) {
        return { status: err.status, body: { error: err.message, ...err.context } };
    }
    return { status: 500, body: { error: 'Internal error' } };
}
