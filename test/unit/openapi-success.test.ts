/*
 * Every operation of the document says what a success answers: a schema per media type that
 * declares a shape, or, where the shape is another program's (an instance's reply), says so in a
 * description. A bare `{}` (TypeBox's Type.Unknown()) declares nothing and lets any answer pass the
 * response checks of the tests.
 */
import t from 'tap';
import Ajv2020 from 'ajv/dist/2020';
import { normalizeConfig } from '../../src/instance/config';
import { loadCommands } from '../../src/command-runtime/load-commands';
import { buildOpenApi } from '../../src/routing/openapi';
import { restRoutes } from '../../src/routes';

type Json = Record<string, unknown>;
interface Operation {
    responses: Record<string, { content?: Record<string, { schema?: Json }> }>;
}

const commands = loadCommands();

function documentFor(native: Record<string, unknown>): Json {
    const config = normalizeConfig(native);
    return buildOpenApi({ routes: restRoutes(config), commands: commands.values(), version: '5.0.0', basePath: '', auth: config.auth });
}

function operations(doc: Json): Array<[string, Operation]> {
    return Object.entries(doc.paths as Record<string, Record<string, Operation>>).flatMap(([path, methods]) =>
        Object.entries(methods).map(([method, op]): [string, Operation] => [`${method.toUpperCase()} ${path}`, op]),
    );
}

/** A schema declares something when it constrains, or describes what it cannot constrain. */
function declares(schema: Json | undefined): boolean {
    return !!schema && Object.keys(schema).length > 0;
}

/** The operations whose success answers lack a schema: a 2xx without a body (other than 204), or a bare `{}`. */
function lackingSuccessSchema(doc: Json): string[] {
    const lacking: string[] = [];
    for (const [name, op] of operations(doc)) {
        const success = Object.keys(op.responses).filter(status => /^2\d\d$/.test(status));
        if (!success.length) {
            lacking.push(`${name}: no 2xx`);
        }
        for (const status of success.filter(s => s !== '204')) {
            const content = op.responses[status].content;
            if (!content || !Object.keys(content).length) {
                lacking.push(`${name} ${status}: no body declared`);
                continue;
            }
            for (const [media, { schema }] of Object.entries(content)) {
                if (!declares(schema)) {
                    lacking.push(`${name} ${status} ${media}: no schema`);
                }
            }
        }
    }
    return lacking;
}

t.test('every operation declares the schema of its success answer, with every feature on and off', async t => {
    for (const native of [{ auth: true, inboundWebhooks: true, apiTokens: true }, { auth: false }]) {
        const doc = documentFor(native);
        t.ok(operations(doc).length > 150, 'the whole document');
        t.same(lackingSuccessSchema(doc), [], `auth ${String(native.auth)}: none without one`);
    }
});

t.test('the check finds an operation whose success schema is a bare {}', async t => {
    const doc = documentFor({ auth: false });
    const state = (doc.paths as Record<string, Record<string, Operation>>)['/v1/state/{stateId}'].get;
    state.responses['200'].content!['application/json'].schema = {};
    t.same(lackingSuccessSchema(doc), ['GET /v1/state/{stateId} 200 application/json: no schema']);
    delete state.responses['200'].content;
    t.same(lackingSuccessSchema(doc), ['GET /v1/state/{stateId} 200: no body declared']);
});

t.test('the subscription routes declare what they answer', async t => {
    const paths = documentFor({ auth: false }).paths as Record<string, Record<string, Operation>>;
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    const accepts = (path: string, method: string, body: unknown): boolean => ajv.validate(paths[path][method].responses['200'].content!['application/json'].schema!, body);
    const state = { val: 1, ack: true, ts: 1, lc: 1, from: 'system.adapter.x.0', q: 0 };
    t.ok(accepts('/v1/state/{stateId}/subscribe', 'get', state), 'the current state');
    t.ok(accepts('/v1/state/{stateId}/subscribe', 'post', null), 'null for a state without a value');
    t.notOk(accepts('/v1/state/{stateId}/subscribe', 'post', { result: 'OK' }), 'not the answer of another route');
    t.ok(accepts('/v1/object/{objectId}/subscribe', 'post', { _id: 'a.b', type: 'state', common: {}, native: {} }), 'the object');
    for (const [path, method] of [
        ['/v1/states/subscribe', 'post'],
        ['/v1/states/subscribe', 'delete'],
        ['/v1/states/unsubscribe', 'post'],
        ['/v1/objects/subscribe', 'delete'],
        ['/v1/state/{stateId}/unsubscribe', 'get'],
        ['/v1/object/{objectId}/subscribe', 'delete'],
    ]) {
        t.ok(accepts(path, method, { result: 'OK' }), `${method} ${path}: {"result":"OK"}`);
        t.notOk(accepts(path, method, { result: 'failed' }), `${method} ${path}: nothing else`);
    }
    t.ok(accepts('/v1/states/subscribe', 'get', { states: ['a.*'] }), 'the state list');
    t.ok(accepts('/v1/objects/subscribe', 'get', { states: ['a.*'], objects: ['a.*'] }), 'the object list, under both names');
    t.notOk(accepts('/v1/objects/subscribe', 'get', { states: ['a.*'] }), 'the object list has both names');
});

t.test('long polling declares its plain-text answers: `_` after connect, nothing, or event JSON', async t => {
    const polling = (documentFor({ auth: false }).paths as Record<string, Record<string, Operation>>)['/v1/polling'].get;
    const schema = polling.responses['200'].content!['text/plain'].schema!;
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    for (const text of ['_', '', '{"id":"a.b","state":{"val":1}}', '[{"id":"a.b","state":null}]']) {
        t.ok(ajv.validate(schema, text), JSON.stringify(text));
    }
    t.notOk(ajv.validate(schema, 'OK'), 'other text is not declared');
});
