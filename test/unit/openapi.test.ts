import t from 'tap';
import { normalizeConfig } from '../../src/instance/config';
import { loadCommands } from '../../src/command-runtime/load-commands';
import { buildOpenApi } from '../../src/routing/openapi';
import { restRoutes } from '../../src/routes';
import { buildRouter, type Target } from '../../src/routing/router';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Validator } = require('@seriousme/openapi-schema-validator');

const commands = loadCommands();
const routes = restRoutes(normalizeConfig({}));

t.test('the document is valid OpenAPI 3.1 and lists every command with GET and POST', async t => {
    const doc = buildOpenApi({ routes, commands: commands.values(), version: '5.0.0', basePath: '', auth: true });
    const result = await new Validator().validate(doc);
    t.same(result.errors, undefined, 'no validation errors');
    t.equal(result.valid, true);
    t.equal(doc.openapi, '3.1.0');
    const paths = doc.paths as Record<string, Record<string, { parameters?: Array<{ name: string }> }>>;
    for (const name of commands.keys()) {
        t.ok(paths[`/v1/command/${name}`]?.get, `${name} GET`);
        t.ok(paths[`/v1/command/${name}`]?.post, `${name} POST`);
    }
    t.same(paths['/v1/command/getState'].get.parameters!.map(p => p.name), ['id']);
    t.ok(paths['/v1/state/{stateId}'].get && paths['/v1/state/{stateId}'].patch);
    t.notOk(paths['/api-doc/'], 'docs assets are not API');
});

t.test('the prefix of the web-extension mode goes into servers', async t => {
    const doc = buildOpenApi({ routes, commands: [], version: '5.0.0', basePath: '/rest-api', auth: false });
    t.same(doc.servers, [{ url: '/rest-api', description: 'Mounted in the web adapter' }]);
    t.same(doc.security, [], 'without auth an explicit empty requirement');
});

t.test('the route table: commands are static routes whose store is the definition', async t => {
    const router = buildRouter(routes, commands.values(), ['']);
    const found = router.find('POST', '/v1/command/getState');
    t.equal((found?.store as Target).command, commands.get('getState'));
    t.equal(router.find('GET', '/v1/command/constructor'), null);
    t.equal((router.find('GET', '/v1/state/a.b.c/plain')?.params as Record<string, string>).stateId, 'a.b.c');
    t.equal((router.find('GET', '/V1/STATE/Mixed.Case')?.params as Record<string, string>).stateId, 'Mixed.Case', 'paths match case-insensitively, ids keep their case');
    t.matchSnapshot(
        routes.map(r => `${r.method} ${r.path}`),
        'REST routes',
    );
});

t.test('every operation declares its answers: a 2xx with a body schema, and its errors with the one error schema', async t => {
    for (const auth of [true, false]) {
        const doc = buildOpenApi({ routes: restRoutes(normalizeConfig({ auth })), commands: commands.values(), version: '5.0.0', basePath: '', auth });
        const paths = doc.paths as Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema?: unknown }> }>; tags: string[] }>>;
        let operations = 0;
        for (const [path, methods] of Object.entries(paths)) {
            for (const [method, op] of Object.entries(methods)) {
                operations++;
                const name = `${method.toUpperCase()} ${path} (auth ${auth})`;
                const statuses = Object.keys(op.responses).filter(s => /^\d+$/.test(s));
                const success = statuses.filter(s => s.startsWith('2'));
                t.ok(success.length, `${name}: a 2xx`);
                for (const status of success) {
                    const content = op.responses[status].content;
                    if (status === '204') {
                        t.notOk(content, `${name} 204: no body`);
                        continue;
                    }
                    t.ok(content && Object.values(content).every(media => media.schema), `${name} ${status}: a schema per media type`);
                }
                for (const status of statuses.filter(s => /^[45]/.test(s))) {
                    t.same(op.responses[status].content?.['application/json']?.schema, { $ref: '#/components/schemas/Error' }, `${name} ${status}: the error schema`);
                }
                t.notOk(op.responses.default, `${name}: no catch-all default`);
                const open = op.tags.includes('auth') || path === '/name';
                // an inbound webhook answers 401 for a wrong secret, whether or not logins are on
                const bySecret = path === '/webhooks/{name}';
                t.equal(statuses.includes('401'), bySecret || (auth && !open), `${name}: 401 exactly when auth is on (the login routes and /name are open) or a secret authenticates`);
            }
        }
        t.ok(operations > 150, `${operations} operations`);
    }
});
