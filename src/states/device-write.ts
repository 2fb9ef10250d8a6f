import { HttpError, toErrorBody } from '../http/http-error';
import type { RequestContext } from '../context/request-context';
import type { DeviceEntry } from '../objects/device-view';
import { convertBodyValue } from './state-value';
import { writeState } from './states';

/*
 * A device written by roles: `{"ON": true, "LEVEL": 40}`. Every value is checked against its state's
 * common first (type, min, max, states, write), so a refused value writes nothing; then each role is
 * written with ack=false through the same write path as PATCH /v1/state, each with its own rights check.
 */

export interface RoleResult {
    id: string;
    status: number;
    val?: unknown;
    error?: string;
}

/** What a value breaks in its state's common, or undefined when it fits. */
export function refusal(val: unknown, common: Partial<ioBroker.StateCommon>): string | undefined {
    if (common.write === false) {
        return 'the state is read-only';
    }
    const type = common.type;
    if ((type === 'number' || type === 'boolean' || type === 'string') && typeof val !== type) {
        return `must be a ${type}`;
    }
    if (type === 'number' && !Number.isFinite(val)) {
        return 'must be a finite number';
    }
    if (typeof val === 'number' && typeof common.min === 'number' && val < common.min) {
        return `must be at least ${common.min}`;
    }
    if (typeof val === 'number' && typeof common.max === 'number' && val > common.max) {
        return `must be at most ${common.max}`;
    }
    const allowed = allowedValues(common.states);
    if (allowed && !allowed.includes(String(val))) {
        return `must be one of ${allowed.join(', ')}`;
    }
    return undefined;
}

/** The values `common.states` allows: the keys of `{value: label}`, of `"v:label;..."`, or the items of a list. */
function allowedValues(states: unknown): string[] | undefined {
    if (typeof states === 'string' && states) {
        return states.split(';').map(part => part.split(':')[0].trim());
    }
    if (Array.isArray(states)) {
        return states.map(String);
    }
    if (states && typeof states === 'object') {
        return Object.keys(states);
    }
    return undefined;
}

/** Every role checked and converted before anything is written; 422 naming each refusal. */
function checkedValues(
    device: DeviceEntry,
    body: Record<string, unknown>,
    commons: Record<string, Partial<ioBroker.StateCommon>>,
): Map<string, unknown> {
    const roles = Object.keys(body);
    if (!roles.length) {
        throw new HttpError('INVALID_PARAMS', 'No role to write: send e.g. {"ON": true}', {
            context: { id: device.id },
        });
    }
    const known = Object.keys(device.states);
    if (roles.length > known.length) {
        throw new HttpError(
            'INVALID_PARAMS',
            `Nothing written. The body names ${roles.length} roles; the device has ${known.length} (${known.join(', ')})`,
            { context: { id: device.id } },
        );
    }
    const problems: Array<{ role: string; problem: string }> = [];
    const values = new Map<string, unknown>();
    for (const role of roles) {
        // own roles only: `constructor` or `__proto__` in a body is no role of any device
        const state = Object.hasOwn(device.states, role) ? device.states[role] : undefined;
        if (!state) {
            problems.push({
                role,
                problem: `the device has no role ${role.slice(0, 100)} (${known.join(', ')})`,
            });
            continue;
        }
        const common = (Object.hasOwn(commons, role) ? commons[role] : undefined) ?? {};
        let val: unknown;
        let refused: string | undefined;
        try {
            val = convertBodyValue(body[role], common.type, state.id);
            refused = refusal(val, common);
        } catch (err) {
            // text that is no number or boolean: named with its role like every other refusal
            refused = err instanceof HttpError ? err.message : String(err);
        }
        if (refused) {
            problems.push({ role: role.slice(0, 100), problem: refused });
        } else {
            values.set(role, val);
        }
    }
    if (problems.length) {
        const text = problems.map(p => `${p.role}: ${p.problem}`).join('; ');
        throw new HttpError('INVALID_PARAMS', `Nothing written. ${text}`, {
            context: { id: device.id, details: problems },
        });
    }
    return values;
}

/** Writes the roles of `body`; the status is 200 when all were written, else the one failure status or 207. */
export async function writeDeviceRoles(
    ctx: RequestContext,
    device: DeviceEntry,
    body: Record<string, unknown>,
    commons: Record<string, Partial<ioBroker.StateCommon>>,
): Promise<{ status: number; results: Record<string, RoleResult> }> {
    const values = checkedValues(device, body, commons);
    const results: Record<string, RoleResult> = {};
    for (const [role, val] of values) {
        const id = device.states[role].id;
        try {
            await writeState(ctx, id, { val: val as ioBroker.StateValue, ack: false }, 0);
            results[role] = { id, status: 200, val };
        } catch (err) {
            const { status, body: error } = toErrorBody(err);
            results[role] = { id, status, error: String(error.error) };
        }
    }
    const statuses = new Set(Object.values(results).map(r => r.status));
    const status = statuses.size === 1 ? [...statuses][0] : 207;
    return { status, results };
}
