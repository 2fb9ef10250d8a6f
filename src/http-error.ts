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

export class HttpError extends Error {
    readonly status: number;

    constructor(
        readonly code: ErrorCode,
        message: string,
        /** Extra members of the JSON body, e.g. `{ id }` as 4.0.2 clients expect. */
        readonly context: Record<string, unknown> = {},
        status?: number,
        readonly headers?: Record<string, string>,
    ) {
        super(message);
        this.status = status ?? CODE_STATUS[code];
    }
}

/** The JSON body of an error answer: always a top-level `error` string, never a stack. */
export function toErrorBody(err: unknown): { status: number; body: Record<string, unknown> } {
    if (err instanceof HttpError) {
        return { status: err.status, body: { error: err.message, ...err.context } };
    }
    return { status: 500, body: { error: 'Internal error' } };
}
