import { HttpError } from '../http/http-error';

const STRING_PAIRS: Record<string, string> = {
    true: 'false',
    false: 'true',
    on: 'off',
    off: 'on',
    ON: 'OFF',
    OFF: 'ON',
    0: '1',
    1: '0',
};

/**
 * The toggled value of a state, with 4.0.2's formulas: numbers with a range become
 * `max + min - current`, other numbers flip between 0 and 1, booleans are negated and the
 * usual on/off words swap. Anything else cannot be toggled (4.0.2 silently wrote `false`).
 */
export function toggledValue(val: unknown, common: Partial<ioBroker.StateCommon> | undefined, id: string): unknown {
    const type = common?.type;
    if (typeof val === 'string' && val in STRING_PAIRS && type !== 'number') {
        const next = STRING_PAIRS[val];
        return type === 'boolean' ? next === 'true' || next === 'on' || next === 'ON' || next === '1' : next;
    }
    if (type === 'number' || typeof val === 'number') {
        const current = typeof val === 'number' ? val : Number(val);
        const min = common?.min;
        const max = common?.max;
        if (typeof max === 'number') {
            const low = typeof min === 'number' ? min : 0;
            const clamped = Number.isFinite(current) ? Math.min(max, Math.max(low, current)) : low;
            return max + low - clamped;
        }
        return current ? 0 : 1;
    }
    if (typeof val === 'boolean' || type === 'boolean' || val === null || val === undefined) {
        return !val;
    }
    throw new HttpError('INVALID_PARAMS', 'state is neither number nor boolean', { context: { id } });
}
