import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import type { HttpAnswer, RequestOptions } from './iobroker';
import { checkers } from './response-check';

export interface RawOptions {
    method?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    /** Another loopback address (127.x.y.z) as the client's, e.g. to look like another machine. */
    localAddress?: string;
}

/** node:http(s) directly: a chosen client address and self-signed certificates, which fetch cannot do. */
export function rawRequest(url: string, { method = 'GET', headers = {}, body, localAddress }: RawOptions = {}): Promise<HttpAnswer> {
    const target = new URL(url);
    const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
    // Node sends DELETE bodies without a length unless told, which servers rightly refuse
    const allHeaders = body === undefined ? headers : { 'Content-Length': String(Buffer.byteLength(body)), ...headers };
    return new Promise((resolve, reject) => {
        const req = request(target, { method, headers: allHeaders, localAddress, rejectUnauthorized: false, agent: false }, res => {
            const chunks: Buffer[] = [];
            res.on('data', c => chunks.push(c));
            res.on('end', () => {
                const answer = toAnswer(res.statusCode ?? 0, res.headers, Buffer.concat(chunks).toString('utf8'));
                // the answer must be what the document declares: a mismatch fails the test that asked
                const problem = checkers.get(Number(target.port))?.problem(method, target.pathname + target.search, answer);
                if (problem) {
                    reject(new Error(`Response outside the contract: ${problem}`));
                    return;
                }
                resolve(answer);
            });
        });
        req.on('error', reject);
        req.end(body);
    });
}

/** What a test request sends: `raw` as it is, else `body` as JSON (typed so unless the headers say otherwise). */
export function encodeRequest({ body, raw, headers = {} }: RequestOptions): { headers: Record<string, string>; payload?: string | Buffer } {
    if (raw !== undefined || body === undefined) {
        return { headers, payload: raw };
    }
    return { headers: { 'Content-Type': 'application/json', ...headers }, payload: JSON.stringify(body) };
}

/** An answer as tests read it: headers as one text each, the body parsed too when it is JSON. */
export function toAnswer(status: number, headers: IncomingHttpHeaders | Record<string, string | string[] | number | undefined>, text: string): HttpAnswer {
    let json: unknown;
    try {
        json = JSON.parse(text);
    } catch {
        json = undefined;
    }
    const flat = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v)]));
    return { status, headers: flat, text, json };
}

export function basic(user: string, password: string): Record<string, string> {
    return { Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` };
}
