import type { IncomingHttpHeaders } from 'node:http';
import { Type } from '@sinclair/typebox';
import { isAllowed } from '../acl';
import { HttpError } from '../http-error';
import type { Query } from '../query';
import { EVENT_BODY } from '../events/schemas';
import { defineRoute } from '../route';
import { Reply } from '../send';

const DEFAULT_HEARTBEAT_MS = 15_000;

const SSE_HEADERS = {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-store',
    // nginx would otherwise hold events back until its buffer fills
    'X-Accel-Buffering': 'no',
};


const STREAM_DESCRIPTION = [
    'A text/event-stream. Each change is one event `id: <n>` with one JSON line `data:`, shown by the schema:',
    '{"id","state"} for states, {"id","obj"} for objects, the bodies of long polling.',
    'Ids increase per stream; reconnect with `Last-Event-ID` (or `lastEventId`) to get what was missed.',
    '`: ping` comments keep proxies from closing the stream.',
].join(' ');

/** Comma-separated, deduplicated and sorted: the same set of patterns always finds the same channel. */
function patternList(text: string | null | undefined): string[] {
    return [...new Set((text ?? '').split(',').map(p => p.trim()).filter(Boolean))].sort();
}

function heartbeatMs(raw: string | null | undefined): number {
    if (raw === undefined || raw === null || raw === '') {
        return DEFAULT_HEARTBEAT_MS;
    }
    const ms = Number(raw);
    if (!Number.isFinite(ms)) {
        throw new HttpError('INVALID_PARAMS', 'heartbeat must be a number of ms', { details: [{ param: 'heartbeat', problem: 'not a number' }] });
    }
    return Math.min(60_000, Math.max(1000, Math.round(ms)));
}

/** An id we never issued (not a number) counts as older than the replay buffer: the client gets an overflow event. */
function lastEventId(headers: IncomingHttpHeaders, query: Query): number | undefined {
    const raw = headers['last-event-id'] ?? query.lastEventId;
    if (raw === undefined || raw === null || raw === '') {
        return undefined;
    }
    const id = Number(raw);
    return Number.isSafeInteger(id) && id >= 0 ? id : -1;
}

export const eventStreamRoute = defineRoute({
    method: 'GET',
    path: '/v1/events',
    summary: 'Server-sent events: changes of states and objects matching patterns, resumable with Last-Event-ID',
    tag: 'events',
    permission: { type: 'state', operation: 'read' },
    waits: true,
    query: Type.Object({
        pattern: Type.Optional(Type.String({ description: 'State ids or patterns, comma-separated, e.g. 0_userdata.0.*' })),
        objects: Type.Optional(Type.String({ description: 'Object ids or patterns, comma-separated (needs object read)' })),
        heartbeat: Type.Optional(Type.Integer({ description: 'ms between `: ping` comments, 1000..60000, default 15000' })),
        lastEventId: Type.Optional(Type.Integer({ description: 'As the Last-Event-ID header, for EventSource polyfills' })),
    }),
    responses: {
        '200': { description: STREAM_DESCRIPTION, content: { 'text/event-stream': EVENT_BODY } },
    },
    errors: [429],
    async handler({ query, headers, signal }, ctx) {
        const patterns = { states: patternList(query.pattern), objects: patternList(query.objects) };
        if (!patterns.states.length && !patterns.objects.length) {
            throw new HttpError('INVALID_PARAMS', 'pattern or objects is required', {
                details: [
                    { param: 'pattern', problem: 'missing' },
                    { param: 'objects', problem: 'missing' },
                ],
            });
        }
        if (patterns.objects.length && !isAllowed(ctx.acl, { type: 'object', operation: 'read' })) {
            throw new HttpError('FORBIDDEN', 'permissionError');
        }
        const options = { heartbeatMs: heartbeatMs(query.heartbeat), lastEventId: lastEventId(headers, query) };
        const start = await ctx.app.sse.open(ctx.user, patterns, options);
        // a `waits` route always gets a signal
        return Reply.stream(start, signal!, SSE_HEADERS);
    },
});
