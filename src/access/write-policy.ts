import {
    ADMIN_USER,
    inScope,
    isAdministratorAcl,
    isAllowed,
    mayWriteState,
    objectBitAllows,
    type Acl,
    type Guarded,
} from './rules';

/*
 * The rules every write of a request passes before js-controller is called (src/storage/guarded-storage.ts
 * applies them to the request's storage port, so no route or command can skip them). js-controller's
 * objects client checks an object write only against the group right and without the id: the target's
 * own `acl` and its rule for accounts do not apply there. So they apply here, together with ids that
 * only administrators change and the rule that nobody hands out rights they do not hold themselves.
 * History settings that reach another id's series (aliasId, shared file names) need lookups of other
 * objects: history-rights.ts checks them, called by the same guard.
 */

export type ObjectWrite = 'create' | 'write' | 'delete';

/**
 * Ids whose objects and states only administrators write: they configure the host, its adapters and
 * logins, or hold code the script engines run with every right (and switch it on).
 */
const PROTECTED =
    /^(system\.(adapter|host)\.|system\.(config|certificates|repositories|licenses)$|system\.user\.admin$|system\.group\.administrator$|_design\/|script\.|javascript\.\d+\.scriptEnabled\.|rest-api\.\d+(\.|$))/;
/** Object types that only administrators write: js-controller and the script engines read them as configuration or code. */
const PROTECTED_TYPES = new Set(['adapter', 'instance', 'host', 'design', 'config', 'script']);
/** File areas holding an adapter's own web pages (`admin`, `vis-2`, `javascript.admin`), not user data (`vis.0`). */
const CODE_AREA = /^[^.]+(\.admin)?$/;

const USER = 'system.user.';
const GROUP = 'system.group.';
export function isProtectedId(id: string): boolean {
    return PROTECTED.test(id);
}

/** The group right a write of `id` needs: accounts have their own section, as in js-controller. */
function groupRightFor(acl: Acl, id: string, kind: ObjectWrite): boolean {
    if (id.startsWith(USER) || id.startsWith(GROUP)) {
        return !!acl.users[kind];
    }
    return !!acl.object[kind === 'create' ? 'write' : kind];
}

/**
 * The object rules without the account rule: the token scope, administrators, protected ids and
 * types, the group right, and the existing object's write bits (owner bits only in owner-only mode).
 */
export function mayWriteObject(acl: Acl, id: string, existing: Guarded, next: unknown, ownerOnly: boolean): boolean {
    if (!inScope(acl, 'write', id)) {
        return false;
    }
    if (isAdministratorAcl(acl)) {
        return true;
    }
    const kind: ObjectWrite = next === undefined ? 'delete' : existing ? 'write' : 'create';
    const type = (next as { type?: unknown } | null)?.type;
    if (isProtectedId(id) || (typeof type === 'string' && PROTECTED_TYPES.has(type)) || !groupRightFor(acl, id, kind)) {
        return false;
    }
    if ((type === 'user' && !id.startsWith(USER)) || (type === 'group' && !id.startsWith(GROUP))) {
        // js-controller reads accounts by their id prefix; anything else claiming to be one is a decoy
        return false;
    }
    return !existing?.acl || objectBitAllows(acl, existing.acl, ownerOnly);
}

/** A state write or delete: the state rule, no protected id, and for a delete the right to delete. */
export function mayChangeState(
    acl: Acl,
    id: string,
    obj: Guarded,
    ownerOnly: boolean,
    kind: 'write' | 'delete',
): boolean {
    if (!isAdministratorAcl(acl) && isProtectedId(id)) {
        return false;
    }
    if (kind === 'write') {
        return mayWriteState(acl, id, obj, ownerOnly);
    }
    // js-controller's delState: the delete right, then the write bits
    return (
        (acl.user === ADMIN_USER || !!acl.state.delete) &&
        mayWriteState({ ...acl, state: { ...acl.state, write: true } }, id, obj, ownerOnly)
    );
}

/** File writes: the group right, and an adapter's own pages only for administrators (they run in admin's origin). */
export function mayWriteFile(acl: Acl, area: string, operation: 'write' | 'delete'): boolean {
    return isAdministratorAcl(acl) || (isAllowed(acl, { type: 'file', operation }) && !CODE_AREA.test(area));
}
