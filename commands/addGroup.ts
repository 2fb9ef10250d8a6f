import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';
import { HttpError } from '../src/http/http-error';
import { assertValidName, groupId } from '../src/auth/users';
import { ObjectSchema } from '../src/http/schemas';

const ops = (names: string[]) =>
    Type.Optional(Type.Object(Object.fromEntries(names.map(n => [n, Type.Optional(Type.Boolean())]))));
const NONE = { read: false, write: false, delete: false, create: false, list: false };

export default defineCommand({
    name: 'addGroup',
    summary: 'Create a user group with a description and permissions',
    params: Type.Object({
        group: Type.String({ minLength: 1, description: 'Group name' }),
        desc: Type.Optional(Type.String({ description: 'Description' })),
        acl: Type.Optional(
            Type.Object(
                {
                    object: ops(['read', 'write', 'delete', 'list']),
                    state: ops(['read', 'write', 'delete', 'create', 'list']),
                    users: ops(['read', 'write', 'delete', 'create', 'list']),
                    other: ops(['execute', 'http', 'sendto']),
                    file: ops(['read', 'write', 'delete', 'create', 'list']),
                },
                { description: 'JSON, e.g. {"state":{"read":true}}; missing rights are false' },
            ),
        ),
    }),
    permission: { type: 'users', operation: 'create' },
    effect: 'write',
    account: true,
    envelope: 'result',
    result: ObjectSchema,
    errors: [409],
    adminOnly: true,
    async handler({ group, desc, acl }, { data }) {
        assertValidName(group, 'group');
        const id = groupId(group);
        if (await data.getObject(id)) {
            throw new HttpError('CONFLICT', 'Group yet exists', { context: { id } });
        }
        const obj = {
            _id: id,
            type: 'group',
            common: {
                name: group.charAt(0).toUpperCase() + group.slice(1),
                desc: desc ?? '',
                members: [],
                acl: {
                    object: { ...NONE, ...acl?.object },
                    state: { ...NONE, ...acl?.state },
                    users: { ...NONE, ...acl?.users },
                    other: { execute: false, http: false, sendto: false, ...acl?.other },
                    file: { ...NONE, ...acl?.file },
                },
            },
            native: {},
        };
        await data.setObject(id, obj as unknown as ioBroker.SettableObject);
        return obj;
    },
});
