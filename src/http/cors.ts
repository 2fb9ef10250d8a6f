import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from '../config';
import { NOSNIFF } from './send';

const METHODS = 'GET,HEAD,PUT,PATCH,POST,DELETE';

/**
 * CORS as 4.0.2 answered it (any origin, no credentials), or only for the origins of the
 * `corsOrigins` allow-list. Credentials are never allowed, so no origin gets cookie access.
 * Returns true when the request was a preflight and is answered.
 */
export function applyCors(req: IncomingMessage, res: ServerResponse, config: Config): boolean {
    const origin = req.headers.origin;
    if (!config.corsOrigins.length) {
        res.setHeader('Access-Control-Allow-Origin', '*');
    } else if (origin && config.corsOrigins.includes(origin)) {
        res.setHeader('Access-Control-Allow-Origin', origin);
        res.setHeader('Vary', 'Origin');
    }
    if (req.method !== 'OPTIONS' || !req.headers['access-control-request-method']) {
        return false;
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
