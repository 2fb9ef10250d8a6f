import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { HttpAnswer } from './iobroker';
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
                const text = Buffer.concat(chunks).toString('utf8');
                let json: unknown;
                try {
                    json = JSON.parse(text);
                } catch {
                    json = undefined;
                }
                const flat = Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v)]));
                const answer = { status: res.statusCode ?? 0, headers: flat, text, json };
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

export function basic(user: string, password: string): Record<string, string> {
    return { Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` };
}
