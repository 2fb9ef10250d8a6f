import type { IncomingMessage } from 'node:http';
import { urlToHttpOptions } from 'node:url';
import { HttpError } from '../http/http-error';
import { guardedRequest, type TargetPolicy } from './target-guard';

export interface GetResult {
    status: number;
    statusText: string;
    contentType: string;
    body: Buffer;
}

export interface GetOptions {
    targets: TargetPolicy;
    timeoutMs: number;
    maxBytes: number;
    maxRedirects?: number;
}

function parseUrl(text: string): URL {
    try {
        return new URL(text);
    } catch {
        throw new HttpError('INVALID_PARAMS', `Invalid URL: ${text}`);
    }
}

function once(url: URL, options: GetOptions): Promise<{ res: IncomingMessage; body: Buffer }> {
    return new Promise((resolve, reject) => {
        const req = guardedRequest(
            url,
            options.targets,
            { ...urlToHttpOptions(url), method: 'GET', timeout: options.timeoutMs },
            res => {
                const chunks: Buffer[] = [];
                let size = 0;
                res.on('data', (chunk: Buffer) => {
                    size += chunk.length;
                    if (size > options.maxBytes) {
                        req.destroy(
                            new HttpError('PAYLOAD_TOO_LARGE', `The answer is larger than ${options.maxBytes} bytes`),
                        );
                        return;
                    }
                    chunks.push(chunk);
                });
                res.on('end', () => resolve({ res, body: Buffer.concat(chunks) }));
                res.on('error', reject);
            },
        );
        req.on('timeout', () =>
            req.destroy(new HttpError('TIMEOUT', `timeout: ${url.host} did not answer within ${options.timeoutMs} ms`)),
        );
        req.on('error', err =>
            reject(
                err instanceof HttpError
                    ? err
                    : new HttpError(
                          'BAD_GATEWAY',
                          `Request to ${url.host} failed: ${(err as NodeJS.ErrnoException).code ?? err.message}`,
                      ),
            ),
        );
        req.end();
    });
}

/** GET with a deadline, a size cap and the local-target guard on every redirect hop. */
export async function safeHttpGet(target: string, options: GetOptions): Promise<GetResult> {
    let url = parseUrl(target);
    for (let hop = 0; ; hop++) {
        const { res, body } = await once(url, options);
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400 && res.headers.location && hop < (options.maxRedirects ?? 5)) {
            url = new URL(res.headers.location, url);
            continue;
        }
        if (status >= 400) {
            throw new HttpError('BAD_GATEWAY', `Request failed with status code ${status}`, { context: { status } });
        }
        return {
            status,
            statusText: res.statusMessage ?? '',
            contentType: res.headers['content-type'] ?? 'application/octet-stream',
            body,
        };
    }
}
