import { HttpError } from '../http/http-error';

import { booleanFromText } from '../http/boolean-text';

function parseNumber(text: string): number | undefined {
    const trimmed = text.trim();
    // a decimal comma is how many users type numbers
    const normal = /^[+-]?\d+,\d+$/.test(trimmed) ? trimmed.replace(',', '.') : trimmed;
    const n = Number(normal);
    return normal !== '' && Number.isFinite(n) ? n : undefined;
}

/**
 * Converts a value that arrived as text (GET write, toggle) to what the state's `common.type`
 * expects. Text that cannot be converted is refused with 422 instead of being stored wrongly.
 */
export function convertText(text: string, type: string | undefined, id: string): unknown {
    switch (type) {
        case 'boolean': {
            const flag = booleanFromText(text);
            if (flag !== undefined) {
                return flag;
            }
            if (text.trim().toLowerCase() === 'null') {
                return null;
            }
            throw new HttpError('INVALID_PARAMS', `Value "${text}" is not a boolean`, { context: { id } });
        }
        case 'number': {
            const n = parseNumber(text);
            if (n !== undefined) {
                return n;
            }
            if (text.trim() === 'null') {
                return null;
            }
            throw new HttpError('INVALID_PARAMS', `Value "${text}" is not a number`, { context: { id } });
        }
        case 'json':
        case 'object':
        case 'array': {
            // ioBroker keeps these types as JSON text; make sure it is JSON of the right shape
            let parsed: unknown;
            try {
                parsed = JSON.parse(text);
            } catch {
                throw new HttpError('INVALID_PARAMS', `Value is not valid JSON for a state of type "${type}"`, {
                    context: { id },
                });
            }
            if (
                (type === 'array' && !Array.isArray(parsed)) ||
                (type === 'object' && (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)))
            ) {
                throw new HttpError('INVALID_PARAMS', `Value is not a JSON ${type}`, { context: { id } });
            }
            return text;
        }
        default:
            return text;
    }
}

/** A PATCH body's `val` keeps its JSON type, except that text for number/boolean states is converted. */
export function convertBodyValue(val: unknown, type: string | undefined, id: string): unknown {
    if (typeof val === 'string' && (type === 'number' || type === 'boolean')) {
        return convertText(val, type, id);
    }
    if (val !== null && typeof val === 'object' && (type === 'json' || type === 'object' || type === 'array')) {
        return JSON.stringify(val);
    }
    return val;
}
