import { Type } from '@sinclair/typebox';
import { answerText, DEFAULT_POLL_TIMEOUT_MS, type PollingShare } from '../events/polling';
import { EVENT_BODY } from '../events/schemas';
import { defineRoute } from '../routing/route';
import { Reply } from '../http/send';
import { sidOf } from './subscription-target';

/** A poll's answer is text: `_`, nothing, or JSON of one event (an array with batch=true). */
const POLL_ANSWER = Type.Union([
    Type.Literal('_', { description: 'After connect: the session is ready' }),
    Type.Literal('', { description: 'The poll timed out without an event' }),
    Type.String({
        pattern: '^[[{]',
        description: 'One event as JSON text, or with batch=true a JSON array of them',
        contentMediaType: 'application/json',
        contentSchema: Type.Union([EVENT_BODY, Type.Array(EVENT_BODY)]),
    }),
]);

interface Poll {
    owner: string;
    sid: string;
    connect: boolean;
    timeout: number | undefined;
    batch: boolean;
    gone: () => boolean;
}

/** With other instances alive: the session may have been polled elsewhere, and the others learn what this poll hands out. */
async function sharedPoll(share: PollingShare, { owner, sid, connect, timeout, batch, gone }: Poll): Promise<Reply> {
    const session = (await share.find(owner, sid, true))!;
    if (connect) {
        session.timeout = timeout ?? DEFAULT_POLL_TIMEOUT_MS;
        session.lastSeen = Date.now();
        await share.changed(session);
        return Reply.text('_', 'text/plain');
    }
    if (timeout !== undefined) {
        session.timeout = timeout;
    }
    await share.beforePoll(session);
    return Reply.later(reply =>
        session.wait(batch, gone, answer => {
            // told before it goes: a next poll on another instance must not hand out the same events again
            void share.handed(session, answer).then(handout =>
                reply(() => {
                    const text = Reply.text(answerText(answer), 'text/plain');
                    // an answer cut off (the client, or this instance, gone) must not lose its events silently
                    return handout ? text.whenSent(reached => share.delivered(session, handout, reached)) : text;
                }),
            );
        }),
    );
}

/** 4.0.2's long-polling protocol: connect answers `_`, a poll one event as JSON text or an empty body. */
export const pollingRoute = defineRoute({
    method: 'GET',
    path: '/v1/polling',
    scoped: 'ids',
    summary:
        'Long polling: ?connect to start a session (answers "_"), then poll for one event per answer (or all queued with batch=true)',
    tag: 'events',
    permission: { type: 'state', operation: 'read' },
    waits: true,
    // a new sid opens a session, and sessions are bounded per user and in total
    errors: [429],
    responses: {
        200: {
            description:
                '`_` after connect; otherwise one event as JSON text, an array of them with batch=true, or an empty body when the poll timed out',
            content: { 'text/plain': POLL_ANSWER },
        },
    },
    query: Type.Object({
        sid: Type.Optional(Type.String({ description: 'Session id the client chose; without one the client address' })),
        connect: Type.Optional(Type.String({ description: 'Present: start or refresh the session' })),
        timeout: Type.Optional(
            Type.Integer({
                minimum: 1000,
                maximum: 60_000,
                'x-clamp': true,
                description: 'Poll timeout in ms, 1000..60000 (outside: the nearest bound); default 30000',
            }),
        ),
        batch: Type.Optional(Type.Boolean({ description: 'Answer a JSON array with every queued event' })),
    }),
    handler(req, ctx) {
        const share = ctx.events.polling.shared();
        if (share) {
            const connect = 'connect' in req.query || 'check' in req.query;
            return sharedPoll(share, {
                owner: ctx.owner,
                sid: sidOf(req.input.sid, req.remoteAddress),
                connect,
                timeout: req.input.timeout,
                batch: req.input.batch === true,
                gone: req.gone!,
            });
        }
        const session = ctx.events.polling.getOrCreate(ctx.owner, sidOf(req.input.sid, req.remoteAddress));
        const { timeout } = req.input;
        if ('connect' in req.query || 'check' in req.query) {
            session.timeout = timeout ?? DEFAULT_POLL_TIMEOUT_MS;
            session.lastSeen = Date.now();
            return Reply.text('_', 'text/plain');
        }
        if (timeout !== undefined) {
            session.timeout = timeout;
        }
        const batch = req.input.batch === true;
        // answered from the delivery itself: 10,000 waiting polls cost no promise each
        return Reply.later(reply =>
            session.wait(batch, req.gone!, answer => reply(() => Reply.text(answerText(answer), 'text/plain'))),
        );
    },
});
