import t from 'tap';
import { convertBodyValue, convertText } from '../../src/states/state-value';
import { toggledValue } from '../../src/states/toggle';
import { mergeObject } from '../../src/objects/object-merge';

function statusOf(fn: () => unknown): number {
    try {
        fn();
    } catch (err) {
        return (err as { status: number }).status;
    }
    return 0;
}

t.test('convertText by common.type', async t => {
    t.equal(convertText('42', 'number', 'x'), 42);
    t.equal(convertText(' 1,5 ', 'number', 'x'), 1.5);
    t.equal(convertText('0x10', 'number', 'x'), 16);
    t.equal(convertText('1e3', 'number', 'x'), 1000);
    t.equal(statusOf(() => convertText('', 'number', 'x')), 422);
    t.equal(statusOf(() => convertText('abc', 'number', 'x')), 422);
    t.equal(convertText('TRUE', 'boolean', 'x'), true);
    t.equal(convertText('off', 'boolean', 'x'), false);
    t.equal(statusOf(() => convertText('2', 'boolean', 'x')), 422);
    t.equal(convertText('true', 'string', 'x'), 'true');
    t.equal(convertText('[1]', 'array', 'x'), '[1]');
    t.equal(statusOf(() => convertText('{}', 'array', 'x')), 422);
    t.equal(statusOf(() => convertText('[1]', 'object', 'x')), 422);
    t.equal(convertText('anything', undefined, 'x'), 'anything');
    t.equal(convertText('null', 'number', 'x'), null);
});

t.test('convertBodyValue keeps JSON types, converts text for number and boolean states', async t => {
    t.equal(convertBodyValue('12', 'number', 'x'), 12);
    t.equal(convertBodyValue(12, 'string', 'x'), 12);
    t.equal(convertBodyValue({ a: 1 }, 'object', 'x'), '{"a":1}');
    t.equal(convertBodyValue('on', 'boolean', 'x'), true);
});

t.test('toggle formulas', async t => {
    t.equal(toggledValue(true, { type: 'boolean' }, 'x'), false);
    t.equal(toggledValue(49, { type: 'number', min: 0, max: 100 }, 'x'), 51);
    t.equal(toggledValue(2, { type: 'number', min: -100, max: 100 }, 'x'), -2);
    t.equal(toggledValue(150, { type: 'number', min: 0, max: 100 }, 'x'), 0, 'clamped first');
    t.equal(toggledValue(30, { type: 'number', max: 100 }, 'x'), 70, 'min defaults to 0');
    t.equal(toggledValue(5, { type: 'number' }, 'x'), 0);
    t.equal(toggledValue(0, { type: 'number' }, 'x'), 1);
    t.equal(toggledValue('ON', { type: 'string' }, 'x'), 'OFF');
    t.equal(toggledValue('true', { type: 'boolean' }, 'x'), false);
    t.equal(toggledValue(null, { type: 'boolean' }, 'x'), true);
    t.equal(statusOf(() => toggledValue('abc', { type: 'string' }, 'x')), 422);
});

t.test('mergeObject one level deep', async t => {
    t.same(mergeObject({ a: 1, b: { x: 1, y: [1] }, c: 3 }, { a: null, b: { x: null, y: [2], z: 1 }, d: 4 }), { b: { y: [2], z: 1 }, c: 3, d: 4 });
});
