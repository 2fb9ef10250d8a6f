import { HttpError } from '../http/http-error';
import type { CallerData } from '../storage/data';

/** What account helpers need of a request: the caller's data. */
type Caller = { data: CallerData };

// the characters js-controller replaces in generated ids
const FORBIDDEN = /[^._\-/ :!#$%&()+=@^{}|~\p{Ll}\p{Lu}\p{Nd}]+/gu;
const NAME = /^[-.A-Za-züäößÖÄÜа-яА-Я@+$§0-9=?!&#_ ]+$/;

function idPart(name: string): string {
    return name.replace(FORBIDDEN, '_').replace(/\s/g, '_').replace(/\./g, '_').toLowerCase();
}

export function userId(name: string): string {
    return name.startsWith('system.user.') ? name : `system.user.${idPart(name)}`;
}

export function groupId(name: string): string {
    return name.startsWith('system.group.')
        ? name
        : `system.group.${idPart(name.charAt(0).toLowerCase() + name.slice(1))}`;
}

export function assertValidName(name: string, what: 'user' | 'group'): void {
    if (!NAME.test(name) || (what === 'user' && name.includes('_'))) {
        throw new HttpError(
            'INVALID_PARAMS',
            'Invalid characters in the name. Only following special characters are allowed: -@+$§=?!&# and letters',
            {
                context: {
                    [what]: name,
                },
            },
        );
    }
}

/** Reads a user or group object, or answers 404 with the 4.0.2 message. */
export async function existing(ctx: Caller, id: string, what: 'User' | 'Group'): Promise<ioBroker.Object> {
    const obj = await ctx.data.getObject(id);
    if (!obj) {
        throw new HttpError('NOT_FOUND', `${what} does not exist`, { context: { id } });
    }
    return obj;
}

/** What delUser and delGroup declare alike: only an administrator deletes accounts. */
export const ACCOUNT_DELETION = {
    permission: { type: 'users', operation: 'delete' } as const,
    effect: 'write' as const,
    account: true,
    envelope: 'results' as const,
    errors: [404],
    adminOnly: true,
};

/** Deletes a user or group object, refusing the ones js-controller marks `dontDelete` (with 4.0.2's words). */
export async function deleteAccount(ctx: Caller, id: string, what: 'User' | 'Group'): Promise<void> {
    const obj = await existing(ctx, id, what);
    if (obj.common?.dontDelete) {
        const kind = what.toLowerCase();
        throw new HttpError('INVALID_PARAMS', `Cannot delete ${kind}, while is system ${kind}`, { context: { id } });
    }
    await ctx.data.delObject(id);
}

/** Removes a deleted user from every group, so no stale membership grants rights later. */
export async function removeFromGroups(ctx: Caller, user: string): Promise<void> {
    for (const group of await ctx.data.objectsBelow('system.group.', 'group')) {
        const common = group.common as ioBroker.GroupCommon;
        if (common.members?.includes(user as ioBroker.ObjectIDs.User)) {
            common.members = common.members.filter(member => member !== user);
            await ctx.data.setObject(group._id, group);
        }
    }
}
