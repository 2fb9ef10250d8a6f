import { createHmac, randomUUID } from 'node:crypto';
import type { RequestOptions } from 'node:https';
import { urlToHttpOptions } from 'node:url';
import { guardedRequest, type TargetPolicy } from '../messaging/target-guard';

export type HookMethod = 'POST' | 'PUT' | 'PATCH' | 'GET';

export interface DeliveryOptions {
    method: HookMethod;
    secret?: string;
    timeoutMs: number;
    targets: TargetPolicy;
    /** `webhook-id`, the same on every retry and every instance for one event; random without. */
    messageId?: string;
}

/** Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body`; `whsec_` secrets are base64. */
export function sign(secret: string, id: string, timestamp: number, body: string): string {
    const key = secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : Buffer.from(secret, 'utf8');
    return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** Request options of a hook's URL, by the URL object a hook keeps: Node would derive them anew on every call. */
const optionsOfUrl = new WeakMap<URL, RequestOptions>();

function requestOptions(url: URL, reused: boolean): RequestOptions {
    if (!reused) {
        return urlToHttpOptions(url);
    }
    let options = optionsOfUrl.get(url);
    if (!options) {
        options = urlToHttpOptions(url);
        optionsOfUrl.set(url, options);
    }
    return options;
}

/** One HTTP call to a hook with a JSON body; resolves on a status below 400, rejects otherwise. `target` is not changed. */
export function deliver(target: URL, body: string, options: DeliveryOptions): Promise<void> {
    // a GET carries the event in its query: on a copy, the hook's URL stays as registered
    const url = options.method === 'GET' ? new URL(target) : target;
    const headers: Record<string, string | number> = { 'User-Agent': 'ioBroker.rest-api' };
    if (options.method === 'GET') {
        // a GET has no body: the event travels as the `event` query parameter
        url.searchParams.set('event', body);
    } else {
        headers['Content-Type'] = 'application/json';
        headers['Content-Length'] = Buffer.byteLength(body);
    }
    if (options.messageId && !options.secret) {
        // receivers drop an event sent again (a retry, or another instance taking over) by this id
        headers['webhook-id'] = options.messageId;
    }
    if (options.secret) {
        const id = options.messageId ?? `msg_${randomUUID()}`;
        const timestamp = Math.floor(Date.now() / 1000);
        Object.assign(headers, {
            'webhook-id': id,
            'webhook-timestamp': String(timestamp),
            'webhook-signature': sign(options.secret, id, timestamp, body),
        });
    }
    return new Promise((resolve, reject) => {
        const req = guardedRequest(
            url,
            options.targets,
            { ...requestOptions(url, url === target), method: options.method, headers, timeout: options.timeoutMs },
            res => {
                res.resume();
                res.on('end', () =>
                    (res.statusCode ?? 500) < 400 ? resolve() : reject(new Error(`status ${res.statusCode}`)),
                );
            },
        );
        req.on('timeout', () => req.destroy(new Error('timeout')));
        req.on('error', reject);
        req.end(options.method === 'GET' ? undefined : body);
    });
}
