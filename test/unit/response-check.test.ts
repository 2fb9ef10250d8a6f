/*
 * The tests' response check itself (pure logic, on the document built from the real declarations):
 * it passes what is declared and fails a wrong status, a wrong media type and a body outside the
 * schema, including when the declaration is the thing that is wrong.
 */
import { Type } from '@sinclair/typebox';
import t from 'tap';
import { buildOpenApi } from '../../src/routing/openapi';
import { defineRoute } from '../../src/routing/route';
import { checkerFor, ResponseChecker } from '../support/response-check';

const json = (body: unknown, status = 200) => ({ status, headers: { 'content-type': 'application/json; charset=utf-8' }, text: JSON.stringify(body) });

t.test('the real document: declared answers pass, others fail with a reason', async t => {
    const checker = checkerFor({ auth: false });
    const state = { val: 1, ack: true, ts: 1, lc: 1, from: 'system.adapter.x.0', id: 'a.b' };
    t.equal(checker.problem('GET', '/v1/state/a.b', json(state)), undefined);
    t.equal(checker.problem('GET', '/rest-api/v1/state/a.b?withInfo=true', json(state)), undefined, 'under the alias too');
    t.match(checker.problem('GET', '/v1/state/a.b', json({ val: 1 })), /does not match the declared schema: \(body\) must have required property 'id'/);
    t.match(checker.problem('GET', '/v1/state/a.b', json({ error: 'x' }, 418)), /declares no 418/);
    t.equal(checker.problem('GET', '/v1/state/a.b', json({ error: 'not found', id: 'a.b' }, 404)), undefined);
    t.match(checker.problem('GET', '/v1/state/a.b', json({ message: 'no error field' }, 404)), /must have required property 'error'/);
    t.match(checker.problem('GET', '/v1/state/a.b/plain', json(1)), /Content-Type application\/json is not declared/);
    t.equal(checker.problem('GET', '/v1/command/getState?id=a', json({ error: null, result: state })), undefined);
    t.match(checker.problem('GET', '/v1/command/getState?id=a', json({ error: null, results: [state] })), /required property 'result'/, 'the envelope is checked');
    t.equal(checker.problem('GET', '/v1/file/meta.x/a/b/c.txt', { status: 200, headers: { 'content-type': 'application/octet-stream' }, text: 'x' }), undefined, 'a wildcard takes slashes');
    t.equal(checker.problem('GET', '/no/such/path', json({}, 404)), undefined, 'no operation: nothing to check');
    t.match(checkerFor({ auth: false }).problem('GET', '/v1/states', json({ error: 'User is required' }, 401)), /declares no 401/, 'without auth no 401');
    t.equal(checkerFor({ auth: true }).problem('GET', '/v1/states', json({ error: 'User is required' }, 401)), undefined, 'with auth 401 is declared');
});

t.test('a deliberately wrong declaration makes a right answer fail', async t => {
    const route = defineRoute({
        method: 'GET',
        path: '/v1/thing/:id',
        summary: 'A thing',
        tag: 'other',
        permission: null,
        // wrong on purpose: the handler answers {name}, the declaration promises {title}
        responses: { '200': { description: 'The thing', content: { 'application/json': Type.Object({ title: Type.String() }) } } },
        handler: () => ({ name: 'x' }),
    });
    const checker = new ResponseChecker(buildOpenApi({ routes: [route], commands: [], version: '0', basePath: '', auth: false }));
    t.match(checker.problem('GET', '/v1/thing/1', json({ name: 'x' })), /must have required property 'title'/);
});
