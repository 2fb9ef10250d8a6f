/** How events reach clients: long polling, URL hooks, event streams. */
export type Channel = 'polling' | 'hook' | 'sse';

/**
 * Plain counters the event core bumps and `/metrics` reads when scraped: counting costs an addition,
 * not a metrics-library call per event.
 */
export class EventStats {
    /** Events handed to a client's session, hook queue or stream (after its filters). */
    readonly delivered: Record<Channel, number> = { polling: 0, hook: 0, sse: 0 };
    /**
     * Events a full queue had to drop (the client is told of the overflow). Event streams have no
     * queue of their own: a reader too slow is closed and resumes from the replay buffer.
     */
    readonly dropped: Record<Exclude<Channel, 'sse'>, number> = { polling: 0, hook: 0 };
    /** Hook calls that failed (timeouts, refused connections, non-2xx answers). */
    hookFailures = 0;
}
