/*
 * Route bodies and path parameters through the command parser: pure logic, no storage.
 */
import t from 'tap';
import { Type } from '@sinclair/typebox';
import { HttpError } from '../../src/http/http-error';
import { defineRoute } from '../../src/routing/route';
import { parseJsonObject, pathSchema, routeBody, routeParams } from '../../src/routing/route-input';

const problems = (fn: () => unknown): string[] => {
    try {
        fn();
    } catch (err) {
        t.ok(err instanceof HttpError && err.status === 422, 'a 422');
        return ((err as HttpError).context.details as { param: string }[]).map(d => d.param);
    }
    return [];
};

const schema = Type.Object({
    id: Type.String({ minLength: 1 }),
    count: Type.Optional(Type.Integer({ minimum: 1 })),
    flag: Type.Optional(Type.Boolean()),
    inner: Type.Optional(Type.Object({ n: Type.Number(), word: Type.Optional(Type.String()) })),
});

t.test('declared fields typed by the query conventions, free fields kept', async t => {
    t.same(parseJsonObject(schema, { id: 'a', count: '3', flag: 'yes', extra: [1] }), { id: 'a', count: 3, flag: true, extra: [1] });
    t.same(parseJsonObject(schema, { id: 'a', inner: { n: '2.5', more: true } }), { id: 'a', inner: { n: 2.5, more: true } });
    const closed = Type.Object({ a: Type.Number() }, { additionalProperties: false });
    t.same(parseJsonObject(closed, { a: 1 }), { a: 1 }, 'a closed schema takes its own fields');
    t.same(problems(() => parseJsonObject(closed, { a: 1, b: 2 })), ['b'], 'and names any other in a 422');
    const nested = Type.Object({ outer: Type.Optional(closed) });
    t.same(problems(() => parseJsonObject(nested, { outer: { a: 1, c: 3 } })), ['outer.c'], 'nested too, from the top');
});

t.test('problems name the field from the top of the body', async t => {
    t.same(problems(() => parseJsonObject(schema, [1])), ['(body)']);
    t.same(problems(() => parseJsonObject(schema, null)), ['(body)']);
    t.same(problems(() => parseJsonObject(schema, {})), ['id']);
    t.same(problems(() => parseJsonObject(schema, { id: 'a', count: 0 })), ['count']);
    t.same(problems(() => parseJsonObject(schema, { id: 'a', inner: { n: 'x' } })), ['inner.n']);
    t.same(problems(() => parseJsonObject(schema, { id: 'a', inner: 'x' })), ['inner']);
    t.same(problems(() => parseJsonObject(schema, { id: 'a', inner: {} })), ['inner.n']);
});

const route = defineRoute({
    method: 'POST',
    path: '/v1/thing/:thingId/*',
    wildcard: 'rest',
    summary: 's',
    tag: 't',
    permission: null,
    body: 'json',
    requestBody: schema,
    responses: { '200': { description: 'ok' } },
    handler: () => null,
});

t.test('path parameters come from one schema, the wildcard by its docs name', async t => {
    t.same(Object.keys(pathSchema(route).properties), ['thingId', 'rest']);
    t.equal(pathSchema(route), pathSchema(route), 'built once per route');
    t.same(routeParams(route, { thingId: 'a.b', '*': 'x/y' }), { thingId: 'a.b', rest: 'x/y', '*': 'x/y' });
    const strict = defineRoute({ ...route, params: Type.Object({ thingId: Type.String({ pattern: '^[a-z]+$' }) }) });
    t.same(problems(() => routeParams(strict, { thingId: 'A1', '*': '' })), ['thingId']);
});

t.test('a JSON body is required unless the route says it may be left out', async t => {
    t.same(problems(() => routeBody(route, undefined)), ['(body)']);
    t.equal(routeBody({ ...route, optionalBody: true }, undefined), undefined);
    t.same(routeBody({ ...route, body: 'upload' }, Buffer.from('x')), Buffer.from('x'), 'uploads as read');
    t.same(routeBody({ ...route, requestBody: Type.Record(Type.String(), Type.Unknown()) }, [1]), [1], 'a dictionary body is left to its handler');
});

t.test('a word outside a fixed choice is named with the choices', async t => {
    const fields = Type.Object({ fields: Type.Array(Type.Union([Type.Literal('val'), Type.Literal('ack')])) });
    try {
        parseJsonObject(fields, { fields: ['val', 'colour'] });
        t.fail('accepted');
    } catch (err) {
        t.match((err as Error).message, /'fields': unknown value "colour", expected one of val, ack/);
    }
});

t.test('JSON null is a value where the schema takes any, otherwise not given; never a bare flag', async t => {
    const s = Type.Object({ val: Type.Unknown(), ack: Type.Optional(Type.Boolean()), n: Type.Optional(Type.Number()) });
    t.same(parseJsonObject(s, { val: null, ack: null, n: null }), { val: null }, 'ack null is not true; n null is dropped');
    t.same(parseJsonObject(s, { val: 1, ack: 1 }), { val: 1, ack: true }, '1 and 0 are booleans in a body too');
    t.same(parseJsonObject(s, { val: 1, ack: 0 }), { val: 1, ack: false });
    t.same(problems(() => parseJsonObject(s, { val: 1, ack: 2 })), ['ack']);
    t.same(Object.keys(parseJsonObject(s, { n: 1, extra: 2, val: 3 })), ['n', 'extra', 'val'], "the client's order");
    const nested = Type.Object({ options: Type.Optional(Type.Object({ count: Type.Optional(Type.Number()) })) });
    t.same(parseJsonObject(nested, { options: { count: null, x: 1 } }), { options: { x: 1 } }, 'a nested null number is dropped, not a 422');
    t.same(parseJsonObject(nested, { options: { count: '' } }), { options: {} });
});

t.test("a clamped timeout of 0 is not given, as 4.0.2's parseInt(x) || default", async t => {
    const s = Type.Object({ timeout: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, 'x-clamp': true })) });
    t.same(parseJsonObject(s, { timeout: 0 }), {});
    t.same(parseJsonObject(s, { timeout: -5 }), { timeout: 1 });
    t.same(parseJsonObject(s, { timeout: 500 }), { timeout: 100 });
});

t.test("fields named like Object.prototype's are the client's own: kept as sent, or named in a closed schema's 422", async t => {
    const parsed = parseJsonObject(schema, JSON.parse('{"id":"a","toString":"x","constructor":2,"__proto__":{"polluted":true}}'));
    t.equal(parsed.toString, 'x', 'the sent text, not the prototype function');
    t.equal(parsed.constructor, 2);
    t.equal(Object.getPrototypeOf(parsed), Object.prototype, 'a sent __proto__ sets no prototype');
    t.equal((parsed as { polluted?: boolean }).polluted, undefined);
    t.notOk(Object.hasOwn(parsed, '__proto__'), 'and is not kept as a field');
    const closed = Type.Object({ a: Type.Number() }, { additionalProperties: false });
    t.same(problems(() => parseJsonObject(closed, JSON.parse('{"a":1,"toString":"x","__proto__":{}}'))).sort(), ['__proto__', 'toString']);
});

t.test('the parsed body is a new object: the client value is not changed', async t => {
    const sent = { id: 'a', count: '3' };
    const parsed = parseJsonObject(schema, sent);
    t.not(parsed, sent);
    t.same(sent, { id: 'a', count: '3' });
    t.equal(parsed.count, 3);
});
