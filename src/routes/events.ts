import type { IncomingHttpHeaders } from 'node:http';
import { safePattern } from '../access/patterns';
import { Type } from '@sinclair/typebox';
import { isAllowed } from '../access/rules';
import { HttpError } from '../http/http-error';
import { MAX_PATTERNS, tooManyPatterns } from '../events/hub';
import { EVENT_BODY } from '../events/schemas';
import { defineRoute } from '../http/route';
import { Reply } from '../http/send';

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
function patternList(param: string, text: string | null | undefined): string[] {
    return [...new Set((text ?? '').split(',').map(p => p.trim()).filter(Boolean).map(p => safePattern(param, p)))].sort();
}

/** An id we never issued (not a number) counts as older than the replay buffer: the client gets an overflow event. */
function lastEventId(headers: IncomingHttpHeaders, input: Record<string, unknown>): number | undefined {
    const raw = headers['last-event-id'] ?? input.lastEventId;
    if (raw === undefined || raw === '') {
        return undefined;
    }
    const id = Number(raw);
    return Number.isSafeInteger(id) && id >= 0 ? id : -1;
}

export const eventStreamRoute = defineRoute({
    method: 'GET',
    path: '/v1/events',
    scoped: 'ids',
    summary: 'Server-sent events: changes of states and objects matching patterns, resumable with Last-Event-ID',
    tag: 'events',
    permission: { type: 'state', operation: 'read' },
    waits: true,
    query: Type.Object({
        pattern: Type.Optional(Type.String({ description: `State ids or patterns, comma-separated, e.g. 0_userdata.0.*; with objects at most ${MAX_PATTERNS}` })),
        objects: Type.Optional(Type.String({ description: `Object ids or patterns, comma-separated (needs object read); with pattern at most ${MAX_PATTERNS}` })),
        heartbeat: Type.Optional(Type.Integer({ minimum: 1000, maximum: 60_000, default: DEFAULT_HEARTBEAT_MS, description: 'ms between `: ping` comments' })),
        lastEventId: Type.Optional(Type.Integer({ minimum: 0, description: 'As the Last-Event-ID header, for EventSource polyfills' })),
    }),
    responses: {
        '200': { description: STREAM_DESCRIPTION, content: { 'text/event-stream': EVENT_BODY } },
    },
    errors: [429],
    async handler({ input, headers, signal }, ctx) {
        const patterns = { states: patternList('pattern', input.pattern as string | undefined), objects: patternList('objects', input.objects as string | undefined) };
        if (!patterns.states.length && !patterns.objects.length) {
            throw new HttpError('INVALID_PARAMS', 'pattern or objects is required', {
                context: {
                    details: [
                        { param: 'pattern', problem: 'missing' },
                        { param: 'objects', problem: 'missing' },
                    ],
                },
            });
        }
        if (patterns.states.length + patterns.objects.length > MAX_PATTERNS) {
            throw tooManyPatterns(['pattern', 'objects'].filter(name => input[name] !== undefined));
        }
        if (patterns.objects.length && !isAllowed(ctx.acl, { type: 'object', operation: 'read' })) {
            throw new HttpError('FORBIDDEN', 'permissionError');
        }
        const options = { heartbeatMs: input.heartbeat as number, lastEventId: lastEventId(headers, input) };
        const start = await ctx.events.sse.open(ctx.owner, patterns, options);
        // a `waits` route always gets a signal
        return Reply.stream(start, signal!, SSE_HEADERS);
    },
});
