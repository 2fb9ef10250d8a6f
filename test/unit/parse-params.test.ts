import { Type } from '@sinclair/typebox';
import t from 'tap';
import { compileParams, parseParams } from '../../src/http/parse-params';
import { parseQuery } from '../../src/http/query';

const schema = compileParams(
    Type.Object({
        id: Type.String(),
        ack: Type.Optional(Type.Boolean()),
        timeout: Type.Optional(Type.Integer({ minimum: 0, maximum: 60000 })),
        options: Type.Optional(Type.Object({ recursive: Type.Optional(Type.Boolean()) })),
        level: Type.String({ default: 'info' }),
        binary: Type.Optional(Type.Boolean()),
    }),
);

t.test('coerces query text by declared type and applies defaults', async t => {
    t.same(parseParams(schema, { id: 'a.0.x', ack: 'true', timeout: '500' }), { id: 'a.0.x', ack: true, timeout: 500, level: 'info' });
    t.same(parseParams(schema, { id: 'x', ack: 'off', binary: null }), { id: 'x', ack: false, level: 'info', binary: true }, 'a bare ?binary is a flag');
    t.same(parseParams(schema, { id: 'x', options: '{"recursive":true}' }), { id: 'x', options: { recursive: true }, level: 'info' });
});

t.test('body values keep their JSON types, undeclared keys are dropped', async t => {
    t.same(parseParams(schema, { id: 'x', ack: true, timeout: 5, options: { recursive: false }, extra: 1 }), {
        id: 'x',
        ack: true,
        timeout: 5,
        options: { recursive: false },
        level: 'info',
    });
});

type Failure = { status: number; code: string; message: string; context: { details: Array<{ param: string; problem: string }> } };

function failure(raw: Record<string, unknown>): Failure {
    try {
        parseParams(schema, raw);
    } catch (err) {
        return err as Failure;
    }
    throw new Error('expected a failure');
}

t.test('names every missing or bad parameter at once', async t => {
    t.match(failure({}), { status: 422, code: 'INVALID_PARAMS', context: { details: [{ param: 'id', problem: 'required' }] } });
    t.match(failure({}).message, /Argument 'id' not found/);
    const bad = failure({ id: 'x', timeout: 'abc' });
    t.same(bad.context.details.map(d => d.param), ['timeout']);
    t.match(bad.message, /timeout/);
    const two = failure({ timeout: '70000', options: '{broken' });
    t.same(two.context.details.map(d => d.param).sort(), ['id', 'options']);
    t.match(failure({ id: 'x', timeout: '70000' }), { status: 422 });
    t.match(failure({ id: 'x', options: '{broken' }).message, /Cannot parse options/);
    t.match(failure({ id: { nested: true } }), { status: 422 });
});

t.test('parseQuery: bare keys are null, + is a space, the last repeat wins, bad escapes stay', async t => {
    t.same({ ...parseQuery('a=1&b&c=x+y&a=2&d=100%&e=%41') }, { a: '2', b: null, c: 'x y', d: '100%', e: 'A' });
    t.same({ ...parseQuery('') }, {});
    t.equal(Object.getPrototypeOf(parseQuery('__proto__=1')), null, 'no prototype to pollute');
});

t.test('4.0.2 timeouts: bounds from the schema cap instead of refusing, garbage counts as not given', async t => {
    const capped = compileParams(
        Type.Object({
            timeout: Type.Optional(Type.Integer({ minimum: 1000, maximum: 60000, 'x-clamp': true })),
            withInfo: Type.Optional(Type.Boolean()),
        }),
    );
    t.same(parseParams(capped, { timeout: '500' }), { timeout: 1000 }, 'below: the minimum');
    t.same(parseParams(capped, { timeout: '999999' }), { timeout: 60000 }, 'above: the maximum');
    t.same(parseParams(capped, { timeout: '2500.7' }), { timeout: 2500 });
    t.same(parseParams(capped, { timeout: 'NaN' }), {}, 'garbage: as absent');
    t.same(parseParams(capped, { timeout: '' }), {}, 'empty: as absent');
    t.same(parseParams(capped, { withInfo: '1' }), { withInfo: true });
    t.same(parseParams(capped, { withInfo: null }), { withInfo: true }, 'a bare flag');
    t.same(parseParams(capped, { withInfo: '' }), {}, '?withInfo= as absent');
    t.throws(() => parseParams(capped, { withInfo: 'maybe' }), /withInfo/, 'a word that is no boolean is refused');
    // without x-clamp the bounds refuse
    t.throws(() => parseParams(schema, { id: 'x', timeout: '70000' }), /timeout/);
});
