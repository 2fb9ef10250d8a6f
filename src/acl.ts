import type { Permission } from './command';

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

export function aclFromGroups(user: string, groups: GroupObject[]): Acl {
    const mine = groups.filter(g => g.common?.members?.includes(user));
    const ids = mine.map(g => g._id);
    if (user === ADMIN_USER || ids.includes(ADMIN_GROUP)) {
        return fullAcl(user, user === ADMIN_USER ? [ADMIN_GROUP] : ids);
    }
    const acl: Acl = { user, groups: ids, object: {}, state: {}, file: {}, users: {}, other: {} };
    for (const group of mine) {
        for (const [type, ops] of Object.entries(group.common?.acl ?? {})) {
            // js-controller's group objects call the users section `user`
            const key = (type === 'user' ? 'users' : type) as keyof Omit<Acl, 'user' | 'groups'>;
            if (!(key in acl) || !ops || typeof ops !== 'object') {
                continue;
            }
            for (const [op, allowed] of Object.entries(ops)) {
                acl[key][op] = acl[key][op] || !!allowed;
            }
        }
    }
    return acl;
}

/** Admin or a member of the administrator group: may see system secrets. */
export function isAdministrator(acl: Acl): boolean {
    return acl.user === ADMIN_USER || acl.groups.includes(ADMIN_GROUP);
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

const READ = 0x4;

/**
 * js-controller's read rule for one state or object: the owner, owner-group or everyone bits of the
 * object's ACL (a state without its own bits uses the object's) and the user's group rights.
 */
export function mayRead(acl: Acl, kind: 'state' | 'object', objectAcl: ObjectAcl | null | undefined): boolean {
    if (acl.user === ADMIN_USER || (kind === 'object' && acl.groups.includes(ADMIN_GROUP))) {
        return true;
    }
    if (!(kind === 'object' ? acl.object.read : acl.state.read)) {
        return false;
    }
    const bits = kind === 'state' ? objectAcl?.state || objectAcl?.object : objectAcl?.object;
    if (!objectAcl || bits === undefined) {
        return true;
    }
    const shift = objectAcl.owner === acl.user ? 8 : objectAcl.ownerGroup && acl.groups.includes(objectAcl.ownerGroup) ? 4 : 0;
    return (bits & (READ << shift)) !== 0;
}
