import type { CompiledScope } from './scope';

/** Permission in the socket-classes vocabulary, e.g. `{ type: 'state', operation: 'read' }`. */
export interface Permission {
    type: 'state' | 'object' | 'file' | 'users' | 'other';
    operation: string;
}

/** What `listPermissions` names for something anyone may call: socket-classes' empty permission. */
export const FREE = Object.freeze({ type: '', operation: '' } as const);
export type PermissionEntry = Permission | typeof FREE;

export type Operations = Record<string, boolean>;

/** What a user may do, OR-ed over the `common.acl` of every group the user is a member of. */
export interface Acl {
    user: string;
    groups: string[];
    object: Operations;
    state: Operations;
    file: Operations;
    users: Operations;
    other: Operations;
    /** Set when the request came with an API token: its id, its object, and its scope when it has one (src/access/scope.ts). */
    token?: { id: string; ref: string; scope?: CompiledScope };
}

export const ADMIN_USER = 'system.user.admin';
const ADMIN_GROUP = 'system.group.administrator';

function fullAcl(user: string, groups: string[]): Acl {
    const all = (ops: string[]): Operations => Object.fromEntries(ops.map(op => [op, true]));
    return {
        user,
        groups,
        object: all(['read', 'write', 'delete', 'list', 'create']),
        state: all(['read', 'write', 'delete', 'create', 'list']),
        file: all(['read', 'write', 'delete', 'create', 'list']),
        users: all(['read', 'write', 'create', 'delete', 'list']),
        other: all(['execute', 'http', 'sendto']),
    };
}

type GroupObject = { _id: string; common?: { members?: string[]; acl?: Record<string, Operations> } };

const SECTIONS = ['object', 'state', 'file', 'users', 'other'] as const;
export type Rights = Partial<Record<(typeof SECTIONS)[number], Operations>>;

/** A group object's `common.acl` in the sections of an Acl (js-controller names the users section `user`). */
export function groupRights(obj: unknown): Rights {
    const acl = (obj as { common?: { acl?: Record<string, unknown> } } | null)?.common?.acl;
    const rights: Rights = {};
    for (const [type, ops] of Object.entries(acl && typeof acl === 'object' ? acl : {})) {
        const section = (type === 'user' ? 'users' : type) as (typeof SECTIONS)[number];
        if (SECTIONS.includes(section) && ops && typeof ops === 'object') {
            rights[section] = ops as Operations;
        }
    }
    return rights;
}

/** Whether every right `rights` grants is one `acl` holds too. */
export function holdsAll(acl: Acl, rights: Rights): boolean {
    return SECTIONS.every(section =>
        Object.entries(rights[section] ?? {}).every(([op, on]) => !on || !!acl[section][op]),
    );
}

export function aclFromGroups(user: string, groups: GroupObject[]): Acl {
    const mine = groups.filter(g => g.common?.members?.includes(user));
    const ids = mine.map(g => g._id);
    if (user === ADMIN_USER || ids.includes(ADMIN_GROUP)) {
        return fullAcl(user, user === ADMIN_USER ? [ADMIN_GROUP] : ids);
    }
    const acl: Acl = { user, groups: ids, object: {}, state: {}, file: {}, users: {}, other: {} };
    for (const group of mine) {
        for (const [section, ops] of Object.entries(groupRights(group)) as Array<
            [(typeof SECTIONS)[number], Operations]
        >) {
            for (const [op, allowed] of Object.entries(ops)) {
                acl[section][op] = acl[section][op] || !!allowed;
            }
        }
    }
    return acl;
}

/** Admin or a member of the administrator group, token scope or not. */
export function isAdministratorAcl(acl: Acl): boolean {
    return acl.user === ADMIN_USER || acl.groups.includes(ADMIN_GROUP);
}

/** Admin or a member of the administrator group, not narrowed by a token scope: may see system secrets. */
export function isAdministrator(acl: Acl): boolean {
    return isAdministratorAcl(acl) && !acl.token?.scope;
}

/** The administrator without a token scope: reads everything, so no per-id check is needed. */
export function seesAll(acl: Acl): boolean {
    return acl.user === ADMIN_USER && !acl.token?.scope;
}

/**
 * Accounts and the API tokens themselves: no token writes them, scoped or not, so a leaked token can
 * neither mint another login nor outlive its own revocation.
 */
const TOKEN_RECORD = /^rest-api\.\d+\.tokens\./;
/** The ids whose subtree holds token-proof ones. */
const TOKEN_PROOF_PARENT = /^(system(\.user|\.group)?|rest-api(\.\d+(\.tokens)?)?)$/;

function tokenProof(id: string): boolean {
    return id.startsWith('system.user.') || id.startsWith('system.group.') || TOKEN_RECORD.test(id);
}

/** Whether an API token's scope lets `id` be read or written; true for a login without a token. */
export function inScope(acl: Acl, access: 'read' | 'write', id: string): boolean {
    const token = acl.token;
    if (!token) {
        return true;
    }
    if (access === 'write' && tokenProof(id)) {
        return false;
    }
    return !token.scope || token.scope[access](id);
}

/** Whether an API token may delete `id` and everything below it: all inside its write patterns, nothing token-proof. */
export function inScopeTree(acl: Acl, id: string): boolean {
    const token = acl.token;
    if (!token) {
        return true;
    }
    if (tokenProof(id) || TOKEN_PROOF_PARENT.test(id)) {
        return false;
    }
    return !token.scope || token.scope.writeTree(id);
}

export function isAllowed(acl: Acl, permission: Permission | null): boolean {
    return !permission || acl.user === ADMIN_USER || !!acl[permission.type]?.[permission.operation];
}

/**
 * Caches each user's ACL until any user or group object changes, so a non-admin request
 * does not read every group object (4.0.2 did, on every request).
 */
export class AclCache {
    private readonly cache = new Map<string, Promise<Acl>>();
    /** The same ACLs once loaded, for callers that can go on without waiting. */
    private readonly loaded = new Map<string, Acl>();

    constructor(private readonly loadGroups: () => Promise<GroupObject[]>) {}

    peek(user: string): Acl | undefined {
        return this.loaded.get(user);
    }

    get(user: string): Promise<Acl> {
        let acl = this.cache.get(user);
        if (!acl) {
            acl = user === ADMIN_USER ? Promise.resolve(fullAcl(user, [ADMIN_GROUP])) : this.load(user);
            this.cache.set(user, acl);
            const pending = acl;
            void pending.then(
                value => this.cache.get(user) === pending && this.loaded.set(user, value),
                () => undefined,
            );
        }
        return acl;
    }

    invalidate(): void {
        this.cache.clear();
        this.loaded.clear();
    }

    private async load(user: string): Promise<Acl> {
        try {
            return aclFromGroups(user, await this.loadGroups());
        } catch (err) {
            this.cache.delete(user);
            throw err;
        }
    }
}

export interface ObjectAcl {
    owner?: string;
    ownerGroup?: string;
    object?: number;
    state?: number;
}

/** What the read rules need of an object: its ACL. */
export type Guarded = { acl?: ObjectAcl } | null | undefined;

const READ = 0x4;
const WRITE = 0x2;

/** The owner, owner-group or everyone bit `flag` of `bits` that applies to this user. */
function readBit(acl: Acl, objectAcl: ObjectAcl, bits: number, ownerOnly: boolean, flag = READ): boolean {
    if (objectAcl.owner === acl.user) {
        return (bits & (flag << 8)) !== 0;
    }
    if (ownerOnly) {
        return false;
    }
    const shift = objectAcl.ownerGroup && acl.groups.includes(objectAcl.ownerGroup) ? 4 : 0;
    return (bits & (flag << shift)) !== 0;
}

/** The owner, owner-group or everyone write bit of an object's own `acl.object` (owner bits only in owner-only mode). */
export function objectBitAllows(acl: Acl, objectAcl: ObjectAcl, ownerOnly: boolean): boolean {
    return readBit(acl, objectAcl, Number(objectAcl.object) || 0, ownerOnly, WRITE);
}

/**
 * js-controller's read rule for an object (its objects database applies it to single reads): the
 * administrator group reads all; others need the group right (`users.read` for users and groups)
 * and the owner, owner-group or everyone bit of `acl.object`.
 */
export function mayReadObject(acl: Acl, id: string, obj: Guarded): boolean {
    if (!inScope(acl, 'read', id)) {
        return false;
    }
    if (isAdministratorAcl(acl)) {
        return true;
    }
    if (!acl.object.read || ((id.startsWith('system.user.') || id.startsWith('system.group.')) && !acl.users.read)) {
        return false;
    }
    return !obj?.acl || readBit(acl, obj.acl, Number(obj.acl.object) || 0, false);
}

/**
 * The read rule for a state, as a single read applies it: its object must be readable, the user needs
 * the group right to read states, and the state bits (the object's when the state has none) must
 * allow it; with `ownerOnly` (onlyAllowWhenUserIsOwner) only the owner bits count, as js-controller's
 * getForeignState does. The administrator reads every state.
 */
export function mayReadState(acl: Acl, id: string, obj: Guarded, ownerOnly: boolean): boolean {
    if (!inScope(acl, 'read', id)) {
        return false;
    }
    if (acl.user === ADMIN_USER) {
        return true;
    }
    if (!acl.state.read || !mayReadObject(acl, id, obj)) {
        return false;
    }
    const bits = obj?.acl ? obj.acl.state || obj.acl.object : 0;
    if (!obj?.acl || !bits) {
        // js-controller checks no bits then, except that owner-only needs an owner
        return !ownerOnly;
    }
    return readBit(acl, obj.acl, bits, ownerOnly);
}

/** The write rule for a state, as js-controller's setForeignState applies it: like reading, with write bits and right. */
export function mayWriteState(acl: Acl, id: string, obj: Guarded, ownerOnly: boolean): boolean {
    if (!inScope(acl, 'write', id)) {
        return false;
    }
    if (acl.user === ADMIN_USER) {
        return true;
    }
    // the object read rule without the token's read patterns: a token may write what it may not read
    if (!acl.state.write || !mayReadObject({ ...acl, token: undefined }, id, obj)) {
        return false;
    }
    const bits = obj?.acl ? obj.acl.state || obj.acl.object : 0;
    if (!obj?.acl || !bits) {
        return !ownerOnly;
    }
    return readBit(acl, obj.acl, bits, ownerOnly, WRITE);
}
