import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';
import { HttpError } from '../src/http/http-error';
import { sendToHost } from '../src/messaging/messaging';
import { opaque } from '../src/http/schemas';

const TIMEOUT_MS = 7000;

export default defineCommand({
    name: 'updateLicenses',
    summary: 'Ask the host to fetch the ioBroker.net licences (stored credentials when login/password are null)',
    params: Type.Object({
        login: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'ioBroker.net login' })),
        password: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'ioBroker.net password' })),
    }),
    permission: { type: 'object', operation: 'write' },
    effect: 'write',
    envelope: 'result',
    result: opaque('The licences the host fetched'),
    errors: [504],
    adminOnly: true,
    async handler({ login, password }, ctx) {
        const instance = await ctx.data.adapterObject(`system.adapter.${ctx.meta.namespace}`);
        const host = (instance?.common as { host?: string } | undefined)?.host;
        if (!host) {
            throw new HttpError('UNAVAILABLE', 'No host runs this instance');
        }
        const reply = (await sendToHost(
            ctx,
            host,
            'updateLicenses',
            { login: login ?? null, password: password ?? null },
            TIMEOUT_MS,
        )) as { result?: unknown[]; error?: string } | undefined;
        if (reply?.error) {
            throw new HttpError('BAD_REQUEST', reply.error);
        }
        return reply?.result ?? [];
    },
});
