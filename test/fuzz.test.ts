/*
 * Hostile input against every registered route and every command: no body, malformed JSON, wrong
 * types, ~1 MB strings, 100,000 levels of nesting, invalid UTF-8, unknown ids, patterns (also ones that
 * would backtrack for seconds inside js-controller's database server), `..` and
 * control characters, odd methods. Asserted for every request: an answer within CLIENT_TIMEOUT_MS,
 * no 5xx for a client mistake (the few documented deadline and "not running" answers are listed in
 * ALLOWED_5XX), every error body JSON with an `error` string and without stack frames or absolute
 * paths. At the end the adapter process is the same one and answers, and the seeded data the fuzz
 * ids never point at is unchanged.
 *
 * The random choices come from FUZZ_SEED (printed as the first comment): FUZZ_SEED=<n> repeats a run.
 */
import t, { type Test } from 'tap';
import { tmpdir } from 'node:os';
import { loadCommands } from '../src/command-runtime/load-commands';
import { normalizeConfig } from '../src/instance/config';
import type { Command } from '../src/command-runtime/command';
import type { Route } from '../src/routing/route';
import { restRoutes } from '../src/routes';
import { PROJECT_ROOT } from '../scripts/embedded-storage';
import { fakeInstance } from './support/fake-instance';
import { startIobroker, type IobFixture } from './support/iobroker';
import { socketRequest, SocketTimeout, type SocketAnswer, type SocketRequest } from './support/raw-socket';

const SEED = Number(process.env.FUZZ_SEED ?? 20261121);
const CLIENT_TIMEOUT_MS = 15_000;

/** mulberry32: small, fast and the same on every machine. */
function prng(seed: number): () => number {
    let a = seed >>> 0;
    return () => {
        a = (a + 0x6d2b79f5) >>> 0;
        let x = Math.imul(a ^ (a >>> 15), 1 | a);
        x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
        return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
    };
}

/** Each target draws from its own generator, so adding a route does not change the others' cases. */
function prngFor(name: string): () => number {
    let h = SEED;
    for (const ch of name) {
        h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193);
    }
    return prng(h);
}

const pick = <T>(rand: () => number, list: readonly T[], count: number): T[] => {
    const copy = [...list];
    const out: T[] = [];
    while (out.length < count && copy.length) {
        out.push(copy.splice(Math.floor(rand() * copy.length), 1)[0]);
    }
    return out;
};

// ---- hostile values; every id below is disjoint from the SNAPSHOT ids, so no valid write reaches those ----

const HUGE = 'x'.repeat(1024 * 1024);
const DEEP_ARRAY = '['.repeat(100_000) + ']'.repeat(100_000);
const DEEP_OBJECT = '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000);
const SPECIAL = [
    '',
    ' ',
    '*',
    '**',
    '..',
    '../..',
    '.',
    'constructor',
    '__proto__',
    'toString',
    '\u0000',
    'a\nb',
    'a\r\nSet-Cookie: x=1',
    '\u001b[31m',
    '😀',
    '\ud800',
    '%',
    '%zz',
    'a'.repeat(2000),
];
// patterns that backtrack inside js-controller's database server: they must be refused or collapsed, never stall it
const HOSTILE_PATTERNS = [
    `${'*'.repeat(30)}!`,
    '*a*a*a*a*a*!',
    '*.*.*.*.*.*',
    `0_userdata.0.fz.${'*x'.repeat(20)}!`,
    `fz.${'*'.repeat(500)}`,
];
const ID_POOL = [
    ...SPECIAL,
    ...HOSTILE_PATTERNS,
    '0_userdata.0.fz.nothing',
    'fz.0.unknown',
    '0_userdata.0.fz.*',
    '0_userdata.0.fz.s1',
    '0_userdata.0.fz/../../x',
    'fz.0.a..b',
    'fz.0.\u0000',
    'fz.0,fz.1,,',
    'fz.0.%2e%2e',
];
// file areas: fz.0 is a meta object of its own, 0_userdata.0 (where the snapshot files live) is never a target
const AREA_POOL = [
    ...SPECIAL,
    'fz.0',
    'nothing.0',
    '../0_userdata.0',
    'fz.0/../0_userdata.0',
    '..\\0_userdata.0',
    '%2e%2e',
];
const FILE_POOL = [
    ...SPECIAL,
    'fz/x.txt',
    '../x',
    '../../objects.jsonl',
    '/etc/passwd',
    'C:\\Windows\\win.ini',
    '..\\..\\x',
    '%2e%2e/%2e%2e/x',
    'fz/\u0000.txt',
    'fz/a\tb',
    '/',
    '//',
    'fz/',
];
const INSTANCE_POOL = [
    ...SPECIAL,
    'nothing.0',
    'fz.0',
    'javascript',
    'system.adapter.nothing.0',
    'nothing.-1',
    'nothing.99999999999999999999',
];
const USER_POOL = [...SPECIAL, 'fzuser', 'system.user.fzuser', 'fz group'];
const URL_POOL = [
    ...SPECIAL,
    'http://127.0.0.1:1/',
    'http://[::1]:1/',
    'http://localhost:1/',
    'http://169.254.169.254/',
    'file:///etc/passwd',
    'ftp://x/',
    'javascript:alert(1)',
    'http://',
    'http://2130706433:1/',
    'http://0x7f000001:1/',
    'http://[::ffff:127.0.0.1]:1/',
];
const TIMEOUT_POOL = ['-1', '0', 'abc', '1', '300', '1e3', '0x10', 'NaN', 'Infinity', '', ' '];
const WRONG_TYPES: unknown[] = [
    123,
    -1.5,
    true,
    false,
    null,
    [],
    [1, 'a'],
    {},
    { $gt: '' },
    { __proto__: { polluted: true } },
    'not json',
    '{',
    1e308,
];

const MALFORMED_JSON = [
    '{',
    '{"a":',
    "{'a':1}",
    '[1,2',
    'nul',
    '{"a":1}}',
    '{"a":undefined}',
    '\u0000',
    '{"a":"\\x"}',
    '{"a":1,}',
];

/** Values for a parameter or path segment, chosen by its name. */
function poolFor(name: string): readonly string[] {
    if (/timeout/i.test(name)) {
        return TIMEOUT_POOL;
    }
    if (/^(adapter|objectIdOfFiles)$/.test(name)) {
        return AREA_POOL;
    }
    if (/file|name$|dir|logFile|^\*$/i.test(name) && !/adapterName|^user/i.test(name)) {
        return FILE_POOL;
    }
    if (/instance|host/i.test(name)) {
        return INSTANCE_POOL;
    }
    if (/^(user|group)$/.test(name)) {
        return USER_POOL;
    }
    if (/url/i.test(name)) {
        return URL_POOL;
    }
    return ID_POOL;
}

/** Percent-encodes every byte except unreserved ones; lone surrogates become invalid UTF-8. */
function enc(value: string): string {
    return [...Buffer.from(value, 'utf8')]
        .map(b =>
            /[A-Za-z0-9\-._~]/.test(String.fromCharCode(b))
                ? String.fromCharCode(b)
                : `%${b.toString(16).padStart(2, '0')}`,
        )
        .join('');
}

// ---- what one case is and how its answer is judged ----

interface Case {
    label: string;
    request: SocketRequest;
}

interface Target {
    name: string;
    /** A command or route name in ALLOWED_5XX, when it has documented 5xx answers. */
    key: string;
    cases: Case[];
    /** Send all cases at once (long polls, which each wait their timeout). */
    parallel?: boolean;
}

/*
 * 5xx answers that are not client mistakes, decided narrowly and documented in README:
 * - 503 when the instance or host a call needs does not run (nothing runs under the fixture but the
 *   adapter: no host process, no history or sendTo instance); a host name nobody knows counts as
 *   one that does not run, since only its alive state is asked;
 * - 501 {"error":"timeout"}: write-and-wait found no acknowledgement (4.0.2's status);
 * - 502 from httpGet when a LAN target cannot be reached.
 * Nothing else, and never 500.
 */
const ALLOWED_5XX: Record<string, { status: number; error: RegExp }[]> = {};
const notRunning = { status: 503, error: /not (online|running|alive)|does not run/i };
// the commands and routes README lists as waiting for an instance or a host
for (const key of [
    'sendTo',
    'clientSubscribe',
    'getHistory',
    'getCompactInstalled',
    'getCompactRepository',
    'updateLicenses',
]) {
    ALLOWED_5XX[key] = [notRunning];
}
for (const key of [
    'GET /v1/getHistory/:stateId',
    'POST /v1/getHistory',
    'GET /v1/history',
    'POST /v1/history',
    'GET /v1/addHistory/:stateId',
    'POST /v1/addHistory',
    'GET /v1/sendto/:instance',
    'POST /v1/sendto/:instance',
    'GET /log',
    'GET /log/*',
]) {
    ALLOWED_5XX[key] = [notRunning];
}
for (const key of ['GET /v1/state/:stateId', 'PATCH /v1/state/:stateId', 'GET /v1/state/:stateId/toggle']) {
    ALLOWED_5XX[key] = [{ status: 501, error: /^timeout$/ }];
}
ALLOWED_5XX.httpGet = [{ status: 502, error: /^Request to .* failed/ }];

const LEAKS = [
    { what: 'a stack frame', re: /\n\s+at \S/ },
    { what: 'the project path', re: new RegExp(PROJECT_ROOT.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) },
    { what: 'a temp path', re: new RegExp(tmpdir().replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '/') },
    { what: 'node_modules', re: /node_modules/ },
];

function problemsOf(target: Target, c: Case, answer: SocketAnswer): string[] {
    const problems: string[] = [];
    const { status } = answer;
    if (status >= 500) {
        const text = answer.body.toString('utf8');
        let error = '';
        try {
            error = String(JSON.parse(text).error);
        } catch {
            // judged below
        }
        const head = c.request.method === 'HEAD';
        if (!(ALLOWED_5XX[target.key] ?? []).some(a => a.status === status && (head || a.error.test(error)))) {
            problems.push(`status ${status}: ${text.slice(0, 200)}`);
        }
    }
    if (status >= 400 && c.request.method !== 'HEAD') {
        const text = answer.body.toString('utf8');
        if (!/^application\/json/.test(answer.headers['content-type'] ?? '')) {
            problems.push(
                `error ${status} as ${answer.headers['content-type'] ?? 'no content type'}: ${JSON.stringify(text.slice(0, 100))}`,
            );
        }
        let body: { error?: unknown } | undefined;
        try {
            body = JSON.parse(text);
        } catch {
            problems.push(`error ${status} body is not JSON: ${JSON.stringify(text.slice(0, 100))}`);
        }
        if (body && typeof body.error !== 'string') {
            problems.push(`error ${status} without an error string: ${text.slice(0, 100)}`);
        }
        for (const leak of LEAKS) {
            if (leak.re.test(text)) {
                problems.push(`error ${status} shows ${leak.what}: ${text.slice(0, 300)}`);
            }
        }
    }
    return problems;
}

// ---- building the cases ----

const ODD_METHODS = ['PROPFIND', 'TRACE', 'OPTIONS', 'FUZZLE', 'HEAD'];
const JSON_HEADERS = { 'Content-Type': 'application/json' };

/** Cases shared by routes and commands: bodies of every broken kind, and odd methods. */
function bodyCases(method: string, path: string, rand: () => number, props: string[]): Case[] {
    const cases: Case[] = [];
    const post = (label: string, body: string | Buffer, headers: Record<string, string> = JSON_HEADERS): void => {
        cases.push({ label, request: { method, path, headers, body } });
    };
    cases.push({ label: 'no body', request: { method, path } });
    post('empty JSON body', '');
    for (const text of pick(rand, MALFORMED_JSON, 3)) {
        post(`malformed JSON ${JSON.stringify(text)}`, text);
    }
    for (const value of ['[]', '"text"', '42', 'null', 'true']) {
        post(`body ${value}`, value);
    }
    post('text body', 'val=1', { 'Content-Type': 'text/plain' });
    post('multipart without boundary', '--x\r\n', { 'Content-Type': 'multipart/form-data' });
    post(
        'invalid UTF-8 in JSON',
        Buffer.concat([
            Buffer.from('{"id":"'),
            Buffer.from([0xff, 0xfe, 0xc0, 0xaf, 0xed, 0xa0, 0x80]),
            Buffer.from('"}'),
        ]),
    );
    post('100,000 nested arrays', DEEP_ARRAY);
    post('100,000 nested objects', DEEP_OBJECT);
    const someProp = props.length ? props[Math.floor(rand() * props.length)] : 'id';
    post(`~1 MB string in ${someProp}`, JSON.stringify({ [someProp]: HUGE }));
    post(`100,000 nested arrays in ${someProp}`, `{"${someProp}":${DEEP_ARRAY}}`);
    post(`100,000 nested objects in ${someProp}`, `{"${someProp}":${DEEP_OBJECT}}`);
    for (const prop of props) {
        for (const value of pick(rand, WRONG_TYPES, 2)) {
            post(`${prop}: ${JSON.stringify(value)}`, JSON.stringify({ [prop]: value }));
        }
        for (const value of pick(rand, poolFor(prop), 2)) {
            post(`${prop}: ${JSON.stringify(value.slice(0, 40))}`, JSON.stringify({ [prop]: value }));
        }
    }
    return cases;
}

function queryCases(method: string, path: string, rand: () => number, params: string[]): Case[] {
    const cases: Case[] = [];
    for (const name of params) {
        for (const value of pick(rand, poolFor(name), 3)) {
            cases.push({
                label: `?${name}=${JSON.stringify(value.slice(0, 40))}`,
                request: { method, path: `${path}?${enc(name)}=${enc(value)}` },
            });
        }
        cases.push({ label: `bare ?${name}`, request: { method, path: `${path}?${enc(name)}` } });
        cases.push({
            label: `?${name}=%ff%fe (invalid UTF-8)`,
            request: { method, path: `${path}?${enc(name)}=%ff%fe%c0%af` },
        });
    }
    if (params.length) {
        const all = params.map(p => `${enc(p)}=${enc(pick(rand, poolFor(p), 1)[0])}`).join('&');
        cases.push({ label: 'every parameter hostile at once', request: { method, path: `${path}?${all}` } });
    }
    cases.push({
        label: '?__proto__[x]=1&constructor=1',
        request: { method, path: `${path}?__proto__%5Bx%5D=1&constructor=1&__proto__=1` },
    });
    return cases;
}

const COMMANDS = loadCommands();
const ALL_ROUTES = restRoutes(normalizeConfig({ auth: true }));
/** The OAuth2 routes exist only with auth on; they get their own fixture below. */
const ROUTES = ALL_ROUTES.filter(r => r.tag !== 'auth');
const AUTH_ROUTES = ALL_ROUTES.filter(r => r.tag === 'auth');

const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');
/** Credentials of every broken kind, for the fixture with auth on. */
const HOSTILE_CREDENTIALS: Array<{ label: string; headers?: Record<string, string>; query?: string }> = [
    { label: 'no credentials' },
    { label: 'Basic without base64', headers: { Authorization: 'Basic !!!%%%' } },
    { label: 'Basic without colon', headers: { Authorization: `Basic ${b64('admin')}` } },
    { label: 'Basic with NUL bytes', headers: { Authorization: `Basic ${b64('\u0000:\u0000')}` } },
    {
        label: 'Basic with invalid UTF-8',
        headers: { Authorization: `Basic ${Buffer.from([0x61, 0x3a, 0xff, 0xfe]).toString('base64')}` },
    },
    { label: 'Basic with a 10 kB password', headers: { Authorization: `Basic ${b64(`admin:${'p'.repeat(10_000)}`)}` } },
    { label: 'Basic with a pattern as user', headers: { Authorization: `Basic ${b64('*:*')}` } },
    { label: 'Bearer of 5 kB', headers: { Authorization: `Bearer ${'t'.repeat(5000)}` } },
    { label: 'Bearer with a path', headers: { Authorization: 'Bearer ../../objects.jsonl' } },
    { label: 'an unknown scheme', headers: { Authorization: 'Negotiate abc' } },
    {
        label: 'an API token of an instance that does not exist',
        headers: { Authorization: `Bearer restapi_9999_${'A'.repeat(16)}_${'A'.repeat(43)}` },
    },
    {
        label: 'an API token with a path for an id',
        headers: { Authorization: `Bearer restapi_0_../../objects_${'A'.repeat(43)}` },
    },
    {
        label: 'an API token of 5 kB',
        headers: { Authorization: `Bearer restapi_0_${'A'.repeat(16)}_${'A'.repeat(5000)}` },
    },
    { label: 'an API token with control characters', headers: { Authorization: 'Bearer restapi_0_\u0001\u0002_x' } },
    { label: 'query credentials with invalid UTF-8', query: 'user=admin&pass=%ff%fe' },
    { label: 'query credentials with control characters', query: 'user=%00%0a&pass=%1b' },
    { label: 'query credentials as patterns', query: 'user=*&pass=**' },
    { label: 'query user system.user.admin with an empty pass', query: 'user=system.user.admin&pass=' },
];

/** Plain values for path parameters, so each case changes one thing. */
const PLAIN_PARAM: Record<string, string> = {
    stateId: '0_userdata.0.fz.s1',
    objectId: '0_userdata.0.fz.o1',
    instance: 'nothing.0',
    enumId: 'fzenum',
    file: 'x.css',
};

function pathOf(route: Route, values: Record<string, string>): string {
    return route.path.replace(/:(\w+)|\*/g, (m, name: string | undefined) => values[name ?? '*'] ?? m);
}

function plainValues(route: Route): Record<string, string> {
    const files = /^\/v1\/(file|dir)\//.test(route.path);
    return {
        ...PLAIN_PARAM,
        ...(files ? { objectId: 'fz.0', '*': 'fz/x.txt' } : {}),
        ...(route.path.startsWith('/log/') ? { '*': 'file1/none.log' } : {}),
    };
}

/** Long polls get a short timeout (the last repeat of a query parameter wins), so they answer well before the client gives up. */
function withPollTimeout(route: Route, path: string): string {
    return route.path === '/v1/polling' ? `${path}${path.includes('?') ? '&' : '?'}timeout=1000` : path;
}

function routeTarget(route: Route): Target {
    const key = `${route.method} ${route.path}`;
    const rand = prngFor(key);
    const plain = plainValues(route);
    const base = pathOf(route, plain);
    const cases: Case[] = [];
    const paramNames = [...route.path.matchAll(/:(\w+)|\*/g)].map(m => m[1] ?? '*');
    for (const name of paramNames) {
        const pool =
            name === 'objectId' && plain.objectId === 'fz.0'
                ? AREA_POOL
                : poolFor(name === 'stateId' || name === 'objectId' ? 'id' : name);
        for (const value of pick(rand, pool, 8)) {
            const encoded = name === '*' ? value.split('/').map(enc).join('/') : enc(value);
            cases.push({
                label: `${name} = ${JSON.stringify(value.slice(0, 40))}`,
                request: { method: route.method, path: pathOf(route, { ...plain, [name]: encoded }) },
            });
        }
        for (const raw of [
            '%2e%2e',
            '%2E%2E%2F%2E%2E',
            '..%5C..%5Cx',
            '%00',
            '%0a%0d',
            '%ff%fe',
            '%c0%ae%c0%ae',
            '%',
            '%u002e',
        ]) {
            cases.push({
                label: `${name} = ${raw} (as sent)`,
                request: { method: route.method, path: pathOf(route, { ...plain, [name]: raw }) },
            });
        }
        cases.push({
            label: `${name} with raw bytes 0xff`,
            request: {
                method: route.method,
                path: Buffer.concat([
                    Buffer.from(pathOf(route, { ...plain, [name]: 'fz' })),
                    Buffer.from([0xff, 0xfe]),
                ]),
            },
        });
    }
    cases.push(...queryCases(route.method, base, rand, Object.keys(route.query?.properties ?? {})));
    if (route.method !== 'GET' && route.method !== 'DELETE') {
        cases.push(
            ...bodyCases(
                route.method,
                base,
                rand,
                Object.keys(
                    (route.requestBody as { properties?: object } | undefined)?.properties ?? { val: 1, id: 1 },
                ),
            ),
        );
    } else {
        cases.push({
            label: 'a JSON body on GET/DELETE',
            request: { method: route.method, path: base, headers: JSON_HEADERS, body: DEEP_OBJECT },
        });
    }
    for (const method of ODD_METHODS) {
        cases.push({ label: `method ${method}`, request: { method, path: base } });
    }
    for (const c of cases) {
        c.request.path = typeof c.request.path === 'string' ? withPollTimeout(route, c.request.path) : c.request.path;
    }
    return { name: key, key, cases, parallel: route.path === '/v1/polling' };
}

function commandTarget(cmd: Command): Target {
    const rand = prngFor(cmd.name);
    const path = `/v1/command/${cmd.name}`;
    const props = Object.keys(cmd.params.properties);
    const cases: Case[] = [{ label: 'GET without parameters', request: { method: 'GET', path } }];
    cases.push(...queryCases('GET', path, rand, props));
    cases.push(...bodyCases('POST', path, rand, props));
    for (const method of ODD_METHODS) {
        cases.push({ label: `method ${method}`, request: { method, path } });
    }
    return { name: `command ${cmd.name}`, key: cmd.name, cases };
}

/** Requests no route owns: unknown commands, traversal in the path itself, broken request lines. */
function strayTarget(): Target {
    const get = (label: string, path: string | Buffer, method = 'GET'): Case => ({ label, request: { method, path } });
    const raw = (label: string, bytes: string | Buffer): Case => ({
        label,
        request: { method: '', path: '', raw: Buffer.from(bytes) },
    });
    return {
        name: 'paths no route owns',
        key: 'stray',
        cases: [
            get('unknown command constructor', '/v1/command/constructor'),
            get('unknown command __proto__', '/v1/command/__proto__'),
            get('unknown command hasOwnProperty', '/v1/command/hasOwnProperty', 'POST'),
            get('unknown /v1 path', '/v1/nothing/here'),
            get('traversal in the path', '/../../etc/passwd'),
            get('encoded traversal', '/api-doc/%2e%2e%2f%2e%2e%2fpackage.json'),
            get('traversal to the docs assets', '/api-doc/..%2F..%2Fio-package.json'),
            get('backslash traversal', '/api-doc/..%5C..%5Cio-package.json'),
            get('invalid percent-encoding', '/v1/%zz'),
            get('invalid UTF-8 in the path', '/v1/state/%ff%fe'),
            get('raw bytes in the path', Buffer.from([0x2f, 0x76, 0x31, 0x2f, 0xff, 0xfe])),
            get('an absolute URL as the target', 'http://evil.example/v1/states'),
            get('asterisk target', '*', 'OPTIONS'),
            get('100 kB path', `/v1/state/${'a'.repeat(100_000)}`),
            get('duplicate slashes', '//v1//state//0_userdata.0.fz.s1'),
            raw('garbage instead of a request', 'GARBAGE\r\n\r\n'),
            raw('a request line only', 'GET /name\r\n\r\n'),
            raw('a header without a colon', 'GET /name HTTP/1.1\r\nHost: x\r\nbroken header\r\n\r\n'),
            raw(
                'two content lengths',
                'POST /v1/command/getState HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}',
            ),
            raw(
                'a bad chunk size',
                'POST /v1/command/getState HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
            ),
            raw('a header of 100 kB', `GET /name HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(100_000)}\r\n\r\n`),
        ],
    };
}

// ---- the run ----

const SNAPSHOT_OBJECTS = [
    'system.adapter.rest-api.0',
    'system.user.admin',
    'system.group.administrator',
    'system.group.user',
    'system.config',
    'system.host.vm',
    '0_userdata.0',
    '0_userdata.0.keep',
    '0_userdata.0.keep.num',
    '0_userdata.0.keep.text',
    '0_userdata.0.keep.json',
];
const SNAPSHOT_STATES = ['0_userdata.0.keep.num', '0_userdata.0.keep.text', '0_userdata.0.keep.json'];
const SNAPSHOT_FILES = ['keep/a.txt', 'keep/deep/b.bin'];

async function snapshot(iob: IobFixture): Promise<Record<string, unknown>> {
    const out: Record<string, unknown> = {};
    for (const id of SNAPSHOT_OBJECTS) {
        out[`object ${id}`] = await iob.storage.objects.getObjectAsync(id);
    }
    for (const id of SNAPSHOT_STATES) {
        out[`state ${id}`] = await iob.storage.states.getStateAsync(id);
    }
    for (const name of SNAPSHOT_FILES) {
        const file = await iob.storage.objects.readFile('0_userdata.0', name).catch((err: Error) => err.message);
        out[`file ${name}`] =
            typeof file === 'string' ? file : Buffer.from((file as { file: Buffer | string }).file).toString('base64');
    }
    for (const folder of ['', 'keep', 'keep/deep']) {
        const entries = await iob.storage.objects
            .readDirAsync('0_userdata.0', folder)
            .catch((err: Error) => err.message);
        out[`folder 0_userdata.0/${folder}`] = Array.isArray(entries)
            ? entries.map((e: { file: string; stats: { size: number } }) => [e.file, e.stats?.size])
            : entries;
    }
    return out;
}

let iob: IobFixture;
/** The second fixture, with auth on. */
let locked: IobFixture | undefined;
let pid: number | undefined;
let before: Record<string, unknown>;

t.before(async () => {
    iob = await startIobroker({ native: { checkInterval: 0 } });
    pid = iob.pid;
    const { objects } = iob.storage;
    await objects.setObjectAsync('0_userdata.0.keep', {
        _id: '0_userdata.0.keep',
        type: 'channel',
        common: { name: 'keep' },
        native: {},
    } as ioBroker.Object);
    await iob.createState('0_userdata.0.keep.num', { type: 'number', min: 0, max: 100 }, 42);
    await iob.createState('0_userdata.0.keep.text', { type: 'string' }, 'hello');
    await iob.createState('0_userdata.0.keep.json', { type: 'object' }, '{"a":1}');
    await iob.createState('0_userdata.0.fz.s1', { type: 'number' }, 1);
    await iob.createState('0_userdata.0.fz.o1', { type: 'boolean' }, true);
    await objects.setObjectAsync('fz.0', {
        _id: 'fz.0',
        type: 'meta',
        common: { name: 'fuzz files', type: 'meta.user' },
        native: {},
    } as ioBroker.Object);
    await objects.writeFileAsync('0_userdata.0', 'keep/a.txt', 'keep me');
    await objects.writeFileAsync('0_userdata.0', 'keep/deep/b.bin', Buffer.from([0, 1, 2, 255]));
    await objects.writeFileAsync('fz.0', 'fz/x.txt', 'fuzz me');
    before = await snapshot(iob);
});
// a crashed or killed test process must not leave adapter processes behind
process.once('exit', () => {
    for (const fixture of [iob, locked]) {
        if (fixture?.pid) {
            process.kill(fixture.pid, 'SIGKILL');
        }
    }
});
t.teardown(() => iob?.stop());

/**
 * A route that needs no body (or refuses the request) answers before a large body is read, and the
 * server then closes the connection instead of reading megabytes it will not use (src/app/app.ts). A
 * client still writing gets EPIPE or a reset, often before it could read the answer: that is the
 * connection ending, not a crash or a hang (the caller checks the adapter still runs).
 */
function closedWhileSending(err: unknown, request: SocketRequest): boolean {
    const size = request.raw?.length ?? (request.body === undefined ? 0 : Buffer.byteLength(request.body));
    return /EPIPE|ECONNRESET/.test((err as Error).message) && size > 64 * 1024;
}

async function run(t: Test, target: Target, fixture: IobFixture = iob): Promise<void> {
    if (target.parallel) {
        // long polls each wait their (shortest) timeout; together they wait it once
        const answers = await Promise.allSettled(
            target.cases.map(c => socketRequest(fixture.port, c.request, CLIENT_TIMEOUT_MS)),
        );
        target.cases.forEach((c, i) => {
            const a = answers[i];
            const label = `${target.name}: ${c.label}`;
            if (a.status === 'rejected') {
                t.fail(label, { problem: `no answer: ${(a.reason as Error).message}`, seed: SEED });
            } else {
                t.same(problemsOf(target, c, a.value), [], `${label} (${a.value.status})`, { seed: SEED });
            }
        });
        return;
    }
    for (const c of target.cases) {
        const label = `${target.name}: ${c.label}`;
        let answer: SocketAnswer;
        try {
            answer = await socketRequest(fixture.port, c.request, CLIENT_TIMEOUT_MS);
        } catch (err) {
            await new Promise(resolve => setTimeout(resolve, 300));
            const alive = fixture.pid !== undefined;
            const problem =
                err instanceof SocketTimeout ? `hangs: ${err.message}` : `no answer: ${(err as Error).message}`;
            if (alive && closedWhileSending(err, c.request)) {
                t.pass(`${label}: the connection closed while a large body was still being sent (the adapter runs)`);
                continue;
            }
            t.fail(label, {
                problem,
                seed: SEED,
                alive,
                log: alive ? undefined : fixture.logs().split('\n').slice(-12).join('\n'),
            });
            if (!alive) {
                // a crash fails the final liveness check too; a new process lets the run find every other problem
                await fixture.storage.states.setStateAsync('system.adapter.rest-api.0.alive', {
                    val: false,
                    ack: true,
                });
                await fixture.restart();
            }
            continue;
        }
        const problems = problemsOf(target, c, answer);
        t.same(problems, [], `${label} (${answer.status})`, { seed: SEED });
    }
}

t.test('hostile input', async t => {
    t.comment(`FUZZ_SEED=${SEED} (set it to repeat this run)`);
    t.ok(pid, 'the adapter runs');
    const targets = [...ROUTES.map(routeTarget), ...[...COMMANDS.values()].map(commandTarget), strayTarget()];
    t.ok(targets.length > 100, `${targets.length} targets`);
    for (const target of targets) {
        await t.test(target.name, async t => run(t, target));
    }
});

/** Every route and command once per kind of broken credentials, and the OAuth2 routes fully. */
function authTargets(): Target[] {
    const targets: Target[] = [];
    const sample = [
        ...ROUTES.map(r => ({
            key: `${r.method} ${r.path}`,
            method: r.method,
            path: withPollTimeout(r, pathOf(r, plainValues(r))),
        })),
        ...[...COMMANDS.values()].map(c => ({ key: c.name, method: 'GET', path: `/v1/command/${c.name}` })),
    ];
    for (const { key, method, path } of sample) {
        const rand = prngFor(`auth ${key}`);
        const cases = pick(rand, HOSTILE_CREDENTIALS, 3).map(cred => ({
            label: cred.label,
            request: {
                method,
                path: cred.query ? `${path}${path.includes('?') ? '&' : '?'}${cred.query}` : path,
                headers: cred.headers,
            },
        }));
        targets.push({ name: `auth on: ${key}`, key, cases, parallel: path.startsWith('/v1/polling') });
    }
    // the API token routes exist only with auth on: their hostile paths and bodies, logged in
    for (const route of ROUTES.filter(r => r.tag === 'tokens')) {
        const target = routeTarget(route);
        target.name = `auth on, logged in: ${target.name}`;
        for (const c of target.cases) {
            c.request.headers = { ...c.request.headers, Authorization: `Basic ${b64('admin:iobroker')}` };
            // from an address the hostile credentials above never failed from: damping must not answer for the route
            c.request.localAddress = '127.0.9.9';
        }
        targets.push(target);
    }
    for (const route of AUTH_ROUTES) {
        const target = routeTarget(route);
        target.name = `auth on: ${target.name}`;
        target.cases.push({
            label: 'form body with invalid UTF-8',
            request: {
                method: route.method,
                path: route.path,
                headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
                body: Buffer.from([0x67, 0x3d, 0xff, 0xfe, 0x26, 0x3d, 0x25]),
            },
        });
        target.cases.push({
            label: 'form body of 1 MB',
            request: {
                method: route.method,
                path: route.path,
                headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
                body: `grant_type=password&username=${HUGE}&password=x`,
            },
        });
        targets.push(target);
    }
    return targets;
}

t.test('hostile credentials and OAuth2 requests with auth on', async t => {
    const fixture = await startIobroker({ native: { auth: true, checkInterval: 0 } });
    locked = fixture;
    const lockedPid = fixture.pid;
    try {
        // the logged-in cases come from where the administrator logged in before: the hostile credentials damp its name across addresses
        const home = await socketRequest(
            fixture.port,
            {
                method: 'GET',
                path: '/v1/command/getVersion',
                headers: { Authorization: `Basic ${b64('admin:iobroker')}` },
                localAddress: '127.0.9.9',
            },
            CLIENT_TIMEOUT_MS,
        );
        t.equal(home.status, 200, 'the administrator logs in from its address');
        for (const target of authTargets()) {
            await t.test(target.name, async t => run(t, target, fixture));
        }
        t.equal(fixture.pid, lockedPid, 'the adapter with auth on is the same process');
        t.equal((await fixture.request('/name')).status, 200);
        t.notMatch(fixture.logs(), /uncaught|unhandled/i, 'no uncaught exception or unhandled rejection was logged');
    } finally {
        await fixture.stop();
    }
});

t.test('JSON is accepted up to 256 levels of nesting, in bodies and in query parameters alike', async t => {
    // an instance that answers, so sendTo really hands the data on
    const echo = await fakeInstance(iob, 'fzecho.0', (_command, message) => ({
        depth: JSON.stringify(message).indexOf('1'),
    }));
    t.teardown(() => echo.close());
    const nested = (levels: number): string => '['.repeat(levels - 1) + '[1' + ']'.repeat(levels);
    let res = await iob.request('/v1/sendto/fzecho.0', {
        method: 'POST',
        body: JSON.parse(`{"message":"x","data":${nested(255)}}`),
    });
    t.same([res.status, res.json], [200, { depth: 255 }], '256 levels in a body (the body object is one)');
    res = await iob.request('/v1/sendto/fzecho.0', {
        method: 'POST',
        raw: `{"message":"x","data":${nested(256)}}`,
        headers: { 'Content-Type': 'application/json' },
    });
    t.same([res.status, res.json.error], [400, 'Invalid JSON body: nested deeper than 256 levels']);
    res = await iob.request(`/v1/sendto/fzecho.0?message=x&data=${nested(256)}`);
    t.same([res.status, res.json], [200, { depth: 256 }], '256 levels in the query');
    res = await iob.request(`/v1/sendto/fzecho.0?message=x&data=${nested(257)}`);
    t.equal(res.status, 422, '257 levels in the query');
    t.match(res.json.details, [{ param: 'data' }]);
    res = await iob.request(
        `/v1/command/sendTo?adapterInstance=fzecho.0&command=x&timeout=2000&message=${nested(257)}`,
    );
    t.equal(res.status, 422, 'a command parameter');
    res = await iob.request(
        `/v1/command/sendTo?adapterInstance=fzecho.0&command=x&timeout=2000&message=${nested(256)}`,
    );
    t.same([res.status, res.json], [200, { depth: 256 }], 'the command answers the reply as it is');
    // strings do not count: brackets inside them are text
    res = await iob.request('/v1/sendto/fzecho.0', {
        method: 'POST',
        raw: JSON.stringify({ message: 'x', data: '['.repeat(5000) }),
        headers: { 'Content-Type': 'application/json' },
    });
    t.equal(res.status, 200, 'brackets inside a string');
});

t.test('afterwards the adapter is the same process and answers', async t => {
    t.equal(iob.pid, pid, 'not restarted, not exited');
    const name = await iob.request('/name');
    t.same([name.status, name.text], [200, 'rest-api.0']);
    t.notMatch(iob.logs(), /uncaught|unhandled/i, 'no uncaught exception or unhandled rejection was logged');
});

t.test('stored data the fuzz ids never point at is unchanged', async t => {
    const after = await snapshot(iob);
    for (const key of Object.keys(before)) {
        t.same(after[key], before[key], key);
    }
});
