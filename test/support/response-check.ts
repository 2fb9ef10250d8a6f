/*
 * Every answer a test receives is checked against the operation's declared response for its status
 * (the same OpenAPI document the server serves, built from the same declarations): an undeclared
 * status, an undeclared media type or a JSON body outside its schema makes the request fail, and
 * with it the test that sent it. Requests that match no operation (unknown paths, wrong methods,
 * the docs page itself) have nothing declared and are not checked.
 */
import Ajv2020 from 'ajv/dist/2020';
import { normalizeConfig } from '../../src/instance/config';
import { loadCommands } from '../../src/command-runtime/load-commands';
import { buildOpenApi } from '../../src/routing/openapi';
import { restRoutes } from '../../src/routes';
import { EXTENSION_PREFIX } from '../../src/routing/router';
import { PACKAGE_VERSION, servedCommands } from '../../src/app/services';

type Json = Record<string, unknown>;

interface Operation {
    method: string;
    template: string;
    pattern: RegExp;
    /** Literal characters of the template: the more, the more specific. */
    weight: number;
    responses: Record<string, Json>;
}

export interface Answer {
    status: number;
    headers: Record<string, string>;
    text: string;
}

const escapePointer = (part: string): string => part.replace(/~/g, '~0').replace(/\//g, '~1');

export class ResponseChecker {
    private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    private readonly operations: Operation[] = [];

    /** `mount`: only paths under it are this document's (a server that serves other things too, like web's). */
    constructor(
        readonly doc: Json,
        private readonly mount?: string,
    ) {
        this.ajv.addSchema(doc, 'doc');
        for (const [template, methods] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
            for (const [method, op] of Object.entries(methods)) {
                const wildcard = ((op.parameters as Json[] | undefined) ?? []).find(p => p['x-wildcard'])?.name;
                const source = template
                    .split(/(\{\w+\})/)
                    .map(part => (/^\{\w+\}$/.test(part) ? (part === `{${String(wildcard)}}` ? '(.+)' : '([^/]+)') : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
                    .join('');
                this.operations.push({
                    method: method.toUpperCase(),
                    template,
                    pattern: new RegExp(`^${source}$`),
                    weight: template.replace(/\{\w+\}/g, '').length,
                    responses: op.responses as Record<string, Json>,
                });
            }
        }
        this.operations.sort((a, b) => b.weight - a.weight);
    }

    /** The problem with this answer, or undefined when it is what the document declares. */
    problem(method: string, url: string, answer: Answer): string | undefined {
        const full = new URL(url, 'http://x').pathname;
        if (this.mount && !full.startsWith(`${this.mount}/`)) {
            return undefined;
        }
        // the standalone server answers under the /rest-api alias too
        const path = full.replace(new RegExp(`^${this.mount ?? EXTENSION_PREFIX}(?=/)`), '');
        const wanted = method === 'HEAD' ? 'GET' : method;
        const op = this.operations.find(o => o.method === wanted && o.pattern.test(path));
        if (!op) {
            return undefined;
        }
        const where = `${method} ${url} (${op.method} ${op.template}) answered ${answer.status}`;
        const status = String(answer.status);
        const declared = op.responses[status] ?? op.responses.default;
        if (!declared) {
            return `${where}: the document declares no ${status} (declared: ${Object.keys(op.responses).join(', ')})`;
        }
        const content = declared.content as Record<string, Json> | undefined;
        if (!content || method === 'HEAD' || answer.text === '') {
            return undefined;
        }
        const type = (answer.headers['content-type'] ?? '').split(';')[0].trim();
        const media = type in content ? type : '*/*' in content ? '*/*' : Object.keys(content).find(m => m.endsWith('/*') && type.startsWith(m.slice(0, -1)));
        if (!media) {
            return `${where}: Content-Type ${type || '(none)'} is not declared (declared: ${Object.keys(content).join(', ')})`;
        }
        if (media !== 'application/json' && media !== 'text/plain') {
            return undefined;
        }
        // plain text is checked as the string it is (long polling's `_`, a state's value)
        let body: unknown = answer.text;
        if (media === 'application/json') {
            try {
                body = JSON.parse(answer.text);
            } catch {
                return `${where}: the body is no JSON`;
            }
        }
        const pointer = ['paths', op.template, op.method.toLowerCase(), 'responses', declared === op.responses[status] ? status : 'default', 'content', media, 'schema'].map(escapePointer).join('/');
        const validate = this.ajv.getSchema(`doc#/${pointer}`);
        if (!validate) {
            return `${where}: no schema at ${pointer}`;
        }
        if (!validate(body)) {
            const errors = (validate.errors ?? []).slice(0, 5).map(e => `${e.instancePath || '(body)'} ${e.message}`);
            return `${where}: the body does not match the declared schema: ${errors.join('; ')}; body: ${answer.text.slice(0, 300)}`;
        }
        return undefined;
    }
}

/** Checkers by the config they were built for: apps with the same config serve the same document. */
const built = new Map<string, ResponseChecker>();

/** The document a server with this instance config serves, built here from the same declarations. */
export function checkerFor(native: Record<string, unknown>, basePath = ''): ResponseChecker {
    const config = normalizeConfig(native);
    // its validators compile on first use: one checker per config, not per app, in a test process
    const key = JSON.stringify([config, basePath]);
    let checker = built.get(key);
    if (!checker) {
        const commands = servedCommands(loadCommands(), config);
        checker = new ResponseChecker(buildOpenApi({ routes: restRoutes(config), commands: commands.values(), version: PACKAGE_VERSION, basePath, auth: config.auth }));
        built.set(key, checker);
    }
    return checker;
}

/** Checkers by the port of the server they check; rawRequest consults them for every answer. */
export const checkers = new Map<number, ResponseChecker>();

/** fetch, with the answer checked like rawRequest's (event streams, whose body never ends, by status only). */
export async function checkedFetch(input: string | URL, init: RequestInit = {}): Promise<Response> {
    const res = await fetch(input, init);
    const url = new URL(String(input));
    const checker = checkers.get(Number(url.port));
    if (checker) {
        const headers = Object.fromEntries(res.headers);
        const streamed = headers['content-type']?.startsWith('text/event-stream');
        const text = streamed || init.method === 'HEAD' ? '' : await res.clone().text();
        const problem = checker.problem(init.method ?? 'GET', url.pathname + url.search, { status: res.status, headers, text });
        if (problem) {
            throw new Error(`Response outside the contract: ${problem}`);
        }
    }
    return res;
}
