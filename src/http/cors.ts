import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from '../instance/config';
import { NOSNIFF, setAnswerHeaders } from './send';

const METHODS = 'GET,HEAD,PUT,PATCH,POST,DELETE';

/** 4.0.2's answer to every origin; one object for all requests. */
const ANY_ORIGIN = Object.freeze({ 'Access-Control-Allow-Origin': '*' });

/**
 * CORS as 4.0.2 answered it (any origin, no credentials), or only for the origins of the
 * `corsOrigins` allow-list. Credentials are never allowed, so no origin gets cookie access.
 * Returns true when the request was a preflight and is answered.
 */
export function applyCors(req: IncomingMessage, res: ServerResponse, config: Config): boolean {
    const origin = req.headers.origin;
    // given to send() rather than res.setHeader: a header set ahead makes Node merge every later one by one
    const headers = !config.corsOrigins.length
        ? ANY_ORIGIN
        : origin && config.corsOrigins.includes(origin)
          ? { 'Access-Control-Allow-Origin': origin, Vary: 'Origin' }
          : undefined;
    if (req.method !== 'OPTIONS' || !req.headers['access-control-request-method']) {
        if (headers) {
            setAnswerHeaders(res, headers);
        }
        return false;
    }
    for (const [name, value] of Object.entries(headers ?? {})) {
        res.setHeader(name, value);
    }
    res.setHeader('Access-Control-Allow-Methods', METHODS);
    const requested = req.headers['access-control-request-headers'];
    if (requested) {
        res.setHeader('Access-Control-Allow-Headers', requested);
        res.appendHeader('Vary', 'Access-Control-Request-Headers');
    }
    res.setHeader('Access-Control-Max-Age', '600');
    res.writeHead(204, { 'Content-Length': 0, 'X-Content-Type-Options': NOSNIFF }).end();
    return true;
}
