import { Type } from '@sinclair/typebox';
import { clampTimeout } from '../events/polling';
import { EVENT_BODY } from '../events/schemas';
import { isTrueFlag } from '../query';
import { defineRoute } from '../route';
import { Reply } from '../send';
import { sidOf } from './subscription-target';

/** 4.0.2's long-polling protocol: connect answers `_`, a poll one event as JSON text or an empty body. */
export const pollingRoute = defineRoute({
    method: 'GET',
    path: '/v1/polling',
    summary: 'Long polling: ?connect to start a session (answers "_"), then poll for one event per answer (or all queued with batch=true)',
    tag: 'events',
    permission: { type: 'state', operation: 'read' },
    waits: true,
    responses: {
        '200': {
            description: '`_` after connect; otherwise one event as JSON text, an array of them with batch=true, or an empty body when the poll timed out',
            content: { 'text/plain': EVENT_BODY },
        },
    },
    query: Type.Object({
        sid: Type.Optional(Type.String({ description: 'Session id the client chose; without one the client address' })),
        connect: Type.Optional(Type.String({ description: 'Present: start or refresh the session' })),
        timeout: Type.Optional(Type.Integer({ description: 'Poll timeout in ms, 1000..60000 (default 30000)' })),
        batch: Type.Optional(Type.Boolean({ description: 'Answer a JSON array with every queued event' })),
    }),
    async handler(req, ctx) {
        const session = ctx.app.polling.getOrCreate(ctx.user, sidOf(req));
        if ('connect' in req.query || 'check' in req.query) {
            session.timeout = clampTimeout(req.query.timeout);
            session.lastSeen = Date.now();
            return Reply.text('_', 'text/plain');
        }
        if (req.query.timeout) {
            session.timeout = clampTimeout(req.query.timeout);
        }
        const answer = await session.poll(isTrueFlag(req.query.batch), req.signal!);
        return Reply.text(answer === undefined ? '' : JSON.stringify(answer), 'text/plain');
    },
});
