import {
    groupRights,
    holdsAll,
    isAdministratorAcl,
    mayReadObject,
    mayReadState,
    seesAll,
    type Acl,
    type AclCache,
    type Guarded,
} from '../access/rules';
import { HttpError } from '../http/http-error';
import type { HistorySettingsCache } from './cache/history-settings';
import type { StoragePort } from './port';
import { pairMemo } from '../access/pair-memo';
import { isProtectedId, mayChangeState, mayWriteFile, mayWriteObject } from '../access/write-policy';
import {
    aliasTargets,
    assertAliasedFromAllowed,
    assertMayUseAliasTarget,
    assertMaySetHistorySettings,
    assertSharersAllowed,
    hasHistorySettings,
    type SeriesCaller,
} from '../access/history-rights';

/*
 * The storage port a request gets: the same reads, and every write checked by the write policy
 * before js-controller sees it. A handler cannot reach the unchecked port, so a new route or command
 * inherits the checks. What stays open: js-controller's objects have no compare-and-set, so another
 * writer may change an object's acl between this check and the write.
 */

/** The objects as the adapter sees them (kept coherent), and users' rights (for the account rule). */
export interface PolicyServices {
    objectCache: { get(id: string): Promise<ioBroker.Object | null> };
    acls: Pick<AclCache, 'get'>;
    /** Every object with history settings (the `custom` view), held between object changes. */
    historySettings: Pick<HistorySettingsCache, 'all'>;
}

const USER = 'system.user.';
const GROUP = 'system.group.';
/** Where js-controller's recursive delete reaches: the id and everything below `id.`. */
const BELOW = '.\u9999';

type Write = (...args: any[]) => Promise<any>;

function forbidden(id: string): HttpError {
    return new HttpError('FORBIDDEN', 'permissionError', { context: { id } });
}

/** One checked port per port and ACL. */
const guards = pairMemo<StoragePort, Acl, StoragePort>();
/** A checked port's unchecked one: a context derived from another checks against its own ACL, once. */
const unchecked = new WeakMap<StoragePort, StoragePort>();

/** The request's port for `acl`: the port itself for the administrator, else a checked one (one per ACL). */
export function guardedStorage(
    given: StoragePort,
    acl: Acl,
    ownerOnly: boolean,
    services: PolicyServices,
): StoragePort {
    const port = unchecked.get(given) ?? given;
    if (seesAll(acl)) {
        return port;
    }
    return guards(port, acl, () => {
        const guarded = createGuard(port, acl, ownerOnly, services);
        unchecked.set(guarded, port);
        return guarded;
    });
}

function createGuard(port: StoragePort, acl: Acl, ownerOnly: boolean, services: PolicyServices): StoragePort {
    const admin = isAdministratorAcl(acl);
    /** The history settings' checks look at other objects as the adapter sees them. */
    const seriesCaller: SeriesCaller = {
        acl,
        ownerOnly,
        objectOf: id => services.objectCache.get(id),
        stateObjectsBetween: async (first, last) =>
            (await port.getObjectViewAsync('system', 'state', { startkey: first, endkey: last }))?.rows ?? [],
        customSettings: () => services.historySettings.all(),
    };

    /** Nobody hands out rights above their own: not by editing a group, nor by taking over a stronger account. */
    async function assertAccountBelow(id: string, existing: Guarded, next: unknown): Promise<void> {
        if (admin) {
            return;
        }
        if (id.startsWith(GROUP) && !(holdsAll(acl, groupRights(existing)) && holdsAll(acl, groupRights(next)))) {
            throw forbidden(id);
        }
        if (id.startsWith(USER) && id !== acl.user && existing) {
            const target = await services.acls.get(id);
            if (isAdministratorAcl(target) || !holdsAll(acl, target)) {
                throw forbidden(id);
            }
        }
    }

    async function assertObject(id: string, next: unknown, merge = false): Promise<void> {
        const existing = await services.objectCache.get(id);
        // a merge keeps the type it does not name; its rights are the old ones plus the new, and the
        // account rule checks both
        const after = merge && existing ? { ...existing, ...(next as object) } : next;
        if (!mayWriteObject(acl, id, existing, after, ownerOnly)) {
            throw forbidden(id);
        }
        await assertAccountBelow(id, existing, next);
        await assertAliasTargets(id, existing, next);
        await assertEnumMembers(id, existing, next);
        // `next`, not `after`: a merge changes only the history settings it names
        await assertMaySetHistorySettings(seriesCaller, id, existing, next);
    }

    async function assertDelete(id: string, recursive: boolean): Promise<void> {
        const ids = [id];
        if (recursive) {
            const below = await port.getObjectListAsync({ startkey: `${id}.`, endkey: `${id}${BELOW}` });
            ids.push(...(below?.rows ?? []).map(row => row.id));
        }
        for (const each of ids) {
            const existing = await services.objectCache.get(each);
            if (existing && !mayWriteObject(acl, each, existing, undefined, ownerOnly)) {
                throw forbidden(each);
            }
            await assertAccountBelow(each, existing, undefined);
        }
    }

    /** A state and, for an alias, the state it writes to: the alias must not reach further than its target. */
    async function assertState(id: string, kind: 'write' | 'delete'): Promise<void> {
        const obj = await services.objectCache.get(id);
        if (!mayChangeState(acl, id, obj, ownerOnly, kind)) {
            throw forbidden(id);
        }
        const alias = (obj?.common as { alias?: { id?: unknown } } | undefined)?.alias?.id;
        const target = typeof alias === 'string' ? alias : (alias as { write?: unknown } | undefined)?.write;
        if (
            kind === 'write' &&
            id.startsWith('alias.') &&
            typeof target === 'string' &&
            !mayChangeState(acl, target, await services.objectCache.get(target), ownerOnly, 'write')
        ) {
            throw forbidden(id);
        }
        if (kind === 'write' && hasHistorySettings(obj)) {
            // history appends the value to its file, which other ids' series of the same file name share
            await assertSharersAllowed(seriesCaller, id, 'change');
        }
        if (kind === 'write') {
            // and to the series of every state whose aliasId names this id, settings of its own or not:
            // history keeps that series under this id and records what is written to it
            await assertAliasedFromAllowed(seriesCaller, id, 'change');
        }
        // a history instance appends the value to the series of the state's aliasId (made by someone else)
        for (const series of kind === 'write' ? aliasTargets(obj) : []) {
            await assertMayUseAliasTarget(seriesCaller, series, 'change', id);
        }
    }

    /**
     * A new or changed `common.alias` makes reads of the alias answer its target's state and writes change it:
     * the caller must be allowed to read the target it reads and write the one it writes.
     */
    async function assertAliasTargets(id: string, existing: Guarded, next: unknown): Promise<void> {
        const aliasOf = (obj: unknown): unknown =>
            (obj as { common?: { alias?: { id?: unknown } } } | null | undefined)?.common?.alias?.id;
        const alias = aliasOf(next);
        if (alias === undefined || JSON.stringify(alias) === JSON.stringify(aliasOf(existing))) {
            return;
        }
        const { read, write } =
            typeof alias === 'object' && alias !== null
                ? (alias as { read?: unknown; write?: unknown })
                : { read: alias, write: alias };
        for (const [target, use] of [
            [read, 'read'],
            [write, 'change'],
        ] as const) {
            const obj = typeof target === 'string' ? await services.objectCache.get(target) : null;
            const ok =
                typeof target === 'string' &&
                mayReadState(acl, target, obj, ownerOnly) &&
                (use === 'read' || mayChangeState(acl, target, obj, ownerOnly, 'write'));
            if (target !== undefined && !ok) {
                throw forbidden(id);
            }
        }
    }

    /**
     * An enum member a limited caller adds must be an object it could change itself (for a state: read
     * and write it). Rooms and functions name devices for every user: a room holding someone else's
     * state would lead another caller, or a voice bridge, to switch it. Missing and unreadable ids get
     * the same 403, so it tells nothing about them.
     */
    async function assertEnumMembers(id: string, existing: Guarded, next: unknown): Promise<void> {
        if (!id.startsWith('enum.') || isAdministratorAcl(acl)) {
            return;
        }
        const membersOf = (obj: unknown): unknown =>
            (obj as { common?: { members?: unknown } } | null | undefined)?.common?.members;
        const members = membersOf(next);
        if (!Array.isArray(members)) {
            return;
        }
        const before = membersOf(existing);
        const kept = new Set(Array.isArray(before) ? before : []);
        for (const member of members) {
            if (kept.has(member)) {
                continue;
            }
            const obj = typeof member === 'string' ? await services.objectCache.get(member) : null;
            const mayChange =
                !!obj &&
                (obj.type === 'state'
                    ? mayReadState(acl, member, obj, ownerOnly) && mayChangeState(acl, member, obj, ownerOnly, 'write')
                    : mayReadObject(acl, member, obj) && mayWriteObject(acl, member, obj, obj, ownerOnly));
            if (!mayChange) {
                throw forbidden(id);
            }
        }
    }

    function assertFile(area: unknown, operation: 'write' | 'delete'): void {
        if (!mayWriteFile(acl, String(area ?? ''), operation)) {
            throw new HttpError('FORBIDDEN', 'permissionError', { context: { adapter: area } });
        }
    }

    /** One's own password always; another's with users.write below one's own rights, or a new account's first. */
    async function assertPassword(id: string): Promise<void> {
        if (admin || id === acl.user) {
            return;
        }
        const target = await services.acls.get(id);
        const below = !isProtectedId(id) && !isAdministratorAcl(target) && holdsAll(acl, target);
        if (!((acl.users.write && below) || (acl.users.create && target.groups.length === 0))) {
            throw forbidden(id);
        }
    }

    const checked = <K extends keyof StoragePort>(
        name: K,
        check: (...args: any[]) => Promise<void> | void,
    ): StoragePort[K] =>
        (async (...args: unknown[]) => {
            await check(...args);
            return (port[name] as unknown as Write)(...args);
        }) as unknown as StoragePort[K];
    const options = (args: unknown[]): { recursive?: boolean } | undefined =>
        args.find(a => typeof a === 'object' && a !== null);

    return Object.assign(Object.create(port) as StoragePort, {
        setForeignObjectAsync: checked('setForeignObjectAsync', (id: string, obj: unknown) => assertObject(id, obj)),
        setForeignObjectNotExistsAsync: checked('setForeignObjectNotExistsAsync', (id: string, obj: unknown) =>
            assertObject(id, obj),
        ),
        extendForeignObjectAsync: checked('extendForeignObjectAsync', (id: string, obj: unknown) =>
            assertObject(id, obj, true),
        ),
        delForeignObjectAsync: checked('delForeignObjectAsync', (id: string, ...rest: unknown[]) =>
            assertDelete(id, !!options(rest)?.recursive),
        ),
        setForeignStateAsync: checked('setForeignStateAsync', (id: string) => assertState(id, 'write')),
        delForeignStateAsync: checked('delForeignStateAsync', (id: string) => assertState(id, 'delete')),
        writeFileAsync: checked('writeFileAsync', (area: unknown) => assertFile(area, 'write')),
        mkdirAsync: checked('mkdirAsync', (area: unknown) => assertFile(area, 'write')),
        renameAsync: checked('renameAsync', (area: unknown) => assertFile(area, 'write')),
        chmodFileAsync: checked('chmodFileAsync', (area: unknown) => assertFile(area, 'write')),
        chownFileAsync: checked('chownFileAsync', (area: unknown) => assertFile(area, 'write')),
        unlinkAsync: checked('unlinkAsync', (area: unknown) => assertFile(area, 'delete')),
        setPasswordAsync: checked('setPasswordAsync', (id: string) => assertPassword(id)),
    });
}
