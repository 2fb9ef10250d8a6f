import type { IncomingHttpHeaders } from 'node:http';
import { safePattern } from '../access/patterns';
import { Type } from '@sinclair/typebox';
import { isAllowed } from '../access/rules';
import { HttpError } from '../http/http-error';
import { MAX_PATTERNS, tooManyPatterns } from '../events/hub';
import { EVENT_BODY } from '../events/schemas';
import { defineRoute } from '../routing/route';
import { Reply } from '../http/send';
import { changedSince } from '../objects/changed-since';
import { assertDeviceVisible } from './device-subscribe';

const DEFAULT_HEARTBEAT_MS = 15_000;

const SSE_HEADERS = {
    'Content-Type': 'text/event-stream; charset=utf-8',
    // no-transform: a compressing server in front (the web adapter's, for one) or a proxy would hold
    // events back until its buffer fills, and so would nginx without X-Accel-Buffering
    'Cache-Control': 'no-store, no-transform',
    'X-Accel-Buffering': 'no',
};

const STREAM_DESCRIPTION = [
    'A text/event-stream. Each change is one event `id: <n>` with one JSON line `data:`, shown by the schema:',
    '{"id","state"} for states, {"id","obj"} for objects, {"device","role","id","state"} for the states of `devices`: the bodies of long polling.',
    'Ids are `<origin>.<n>.<time>`: n increases per stream. Reconnect with `Last-Event-ID` (or `lastEventId`) to get what was missed:',
    'exactly, on this or another instance on the same database and after a restart, from a log kept in the states database',
    '(per stream the newest 64 KB and 10 minutes). Beyond that log, or for events the caller may no longer read, an `overflow`',
    'event first, then the current values changed since the time in the id.',
    '`: ping` comments keep proxies from closing the stream.',
].join(' ');

/** Comma-separated, deduplicated and sorted: the same set of patterns always finds the same channel. */
function patternList(param: string, text: string | null | undefined): string[] {
    return [
        ...new Set(
            (text ?? '')
                .split(',')
                .map(p => p.trim())
                .filter(Boolean)
                .map(p => safePattern(param, p)),
        ),
    ].sort();
}

/** Device and enum ids, comma-separated, deduplicated and sorted. */
function idList(text: string | undefined): string[] {
    return [
        ...new Set(
            (text ?? '')
                .split(',')
                .map(id => id.trim())
                .filter(Boolean),
        ),
    ].sort();
}

/** As sent; an id we never issued gets an overflow event first (src/events/sse-channel.ts). */
function lastEventId(headers: IncomingHttpHeaders, input: { lastEventId?: string }): string | undefined {
    const raw = headers['last-event-id'] ?? input.lastEventId;
    return typeof raw === 'string' && raw !== '' ? raw : undefined;
}

export const eventStreamRoute = defineRoute({
    method: 'GET',
    path: '/v1/events',
    scoped: 'ids',
    summary:
        'Server-sent events: changes of states and objects matching patterns, and of devices, resumable with Last-Event-ID',
    tag: 'events',
    permission: { type: 'state', operation: 'read' },
    waits: true,
    query: Type.Object({
        pattern: Type.Optional(
            Type.String({
                description: `State ids or patterns, comma-separated, e.g. 0_userdata.0.*; with objects at most ${MAX_PATTERNS}`,
            }),
        ),
        objects: Type.Optional(
            Type.String({
                description: `Object ids or patterns, comma-separated (needs object read); with pattern at most ${MAX_PATTERNS}`,
            }),
        ),
        devices: Type.Optional(
            Type.String({
                description:
                    'Device ids, room or function enum ids (enum.rooms.*, enum.functions.*), comma-separated: the changes of their states with device and role; they follow the devices as they change',
            }),
        ),
        heartbeat: Type.Optional(
            Type.Integer({
                minimum: 1000,
                maximum: 60_000,
                default: DEFAULT_HEARTBEAT_MS,
                description: 'ms between `: ping` comments',
            }),
        ),
        lastEventId: Type.Optional(
            Type.String({ maxLength: 64, description: 'As the Last-Event-ID header, for EventSource polyfills' }),
        ),
    }),
    responses: {
        200: { description: STREAM_DESCRIPTION, content: { 'text/event-stream': EVENT_BODY } },
    },
    errors: [404, 429],
    async handler({ input, headers, goneSignal }, ctx) {
        const patterns = {
            states: patternList('pattern', input.pattern),
            objects: patternList('objects', input.objects),
            devices: idList(input.devices),
        };
        const count = patterns.states.length + patterns.objects.length + patterns.devices.length;
        if (!count) {
            throw new HttpError('INVALID_PARAMS', 'pattern, objects or devices is required', {
                context: {
                    details: ['pattern', 'objects', 'devices'].map(param => ({ param, problem: 'missing' })),
                },
            });
        }
        if (count > MAX_PATTERNS) {
            // the input holds only the parameters given, in the order of the schema
            throw tooManyPatterns(Object.keys(input).filter(name => ['pattern', 'objects', 'devices'].includes(name)));
        }
        for (const id of patterns.devices) {
            await assertDeviceVisible(ctx, id);
        }
        if (patterns.objects.length && !isAllowed(ctx.acl, { type: 'object', operation: 'read' })) {
            throw new HttpError('FORBIDDEN', 'permissionError');
        }
        const options = {
            heartbeatMs: input.heartbeat ?? DEFAULT_HEARTBEAT_MS,
            lastEventId: lastEventId(headers, input),
            changedSince: (since: number) => changedSince(ctx.data, patterns, since),
        };
        const start = await ctx.events.sse.open(ctx.owner, patterns, options);
        // a `waits` route always gets one
        return Reply.stream(start, goneSignal!(), SSE_HEADERS);
    },
});
