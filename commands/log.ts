import { Type } from '@sinclair/typebox';
import { defineCommand } from '../src/command-runtime/command';

export default defineCommand({
    name: 'log',
    summary: 'Write a line to the ioBroker log of this instance',
    params: Type.Object({
        text: Type.String({ description: 'The text' }),
        level: Type.Union([Type.Literal('error'), Type.Literal('warn'), Type.Literal('info'), Type.Literal('debug')], {
            default: 'info',
            description: 'error, warn, info or debug',
        }),
    }),
    permission: { type: 'other', operation: 'execute' },
    effect: 'write',
    envelope: 'raw',
    result: Type.Object({ result: Type.Literal('OK') }),
    async handler({ text, level }, { meta, user }) {
        meta.log[level](`${user}: ${text}`);
        // 4.0.2's answer for a command without a callback
        return { result: 'OK' };
    },
});
