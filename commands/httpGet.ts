import { Type } from '@sinclair/typebox';
import { BinaryBody, defineCommand } from '../src/command-runtime/command';
import { safeHttpGet } from '../src/messaging/safe-http-get';
import { httpGetPolicy } from '../src/messaging/target-guard';
import { FreeObject, tuple } from '../src/http/schemas';

const TIMEOUT_MS = 15_000;

export default defineCommand({
    name: 'httpGet',
    summary: 'GET a URL through this server; this machine and link-local targets only when httpGetAllowLocal is on',
    params: Type.Object({
        url: Type.String({ minLength: 1, description: 'http(s) URL' }),
        binary: Type.Optional(Type.Boolean({ description: 'Answer the raw body with its Content-Type' })),
    }),
    permission: { type: 'other', operation: 'http' },
    // a GET to a device often switches it: for the browser rules and the docs this acts, it does not only read
    effect: 'write',
    envelope: 'results',
    result: tuple(
        [
            Type.Object({ status: Type.Number(), statusText: Type.String() }),
            Type.Union([Type.String(), FreeObject], {
                description: 'The body: text, or binary bytes as Buffer JSON {type, data}',
            }),
        ],
        2,
        '[{status, statusText}, body]',
    ),
    errors: [502, 504],
    binary: { response: true },
    async handler({ url, binary }, { meta }) {
        const answer = await safeHttpGet(url, {
            targets: httpGetPolicy(meta.config.httpGetAllowLocal),
            timeoutMs: TIMEOUT_MS,
            maxBytes: meta.config.bodyLimit,
        });
        if (binary) {
            return new BinaryBody(answer.body, answer.contentType);
        }
        return [{ status: answer.status, statusText: answer.statusText }, answer.body];
    },
});
