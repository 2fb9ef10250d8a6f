/*
 * Long-polling sessions that every rest-api instance on one database can answer (behind a proxy without
 * sticky sessions). Every instance keeps a copy of every session: the same subscriptions through its own
 * change feed, with the owner's rights, and its own queue. The instance that answers a poll names the
 * events it hands out (by kind, id and `ts`, the same on every instance) before the answer goes; the
 * others drop them. So while all live nothing is lost or sent twice, and when one dies the others still
 * hold what it had not handed out. A session's record (owner, sid, timeout, subscriptions) is kept in
 * js-controller's session store with a TTL, for an instance that never heard of it (it started later).
 * Alone, an instance does none of this: no database write per poll.
 */
import { createHash } from 'node:crypto';
import type { ChangeFeed } from '../storage/change-feed';
import {
    answerIdentities,
    reportsLoss,
    type Answer,
    type Handout,
    type PollingRegistry,
    type PollingSession,
    type PollingShare,
} from './polling';
import type { Filter, SubscriptionKind } from './hub';
import type { Peers } from '../storage/peers';
import type { StoragePort } from '../storage/port';
import { warnOnFailure } from '../instance/warn-on-failure';
import { adminJsonState } from '../storage/admin-json-state';
import { deadline, type Timers } from '../instance/timers';

interface SubscriptionSpec {
    kind: SubscriptionKind;
    pattern: string;
    filter: Filter;
}

/** What the session store keeps of a session, and what a `session` note carries. */
interface SessionRecord {
    owner: string;
    sid: string;
    timeout: number;
    subs: SubscriptionSpec[];
}

type Note =
    /** Created, subscriptions or timeout changed: copy it, then acknowledge `n`. */
    | ({ t: 'session'; n: number } & SessionRecord)
    | { t: 'ack'; to: string; n: number }
    /** A poll handed these events out (none: the session is still polled); `k` numbers the answer. */
    | { t: 'handed'; owner: string; sid: string; timeout: number; events: string[]; k?: number; lossReported?: boolean }
    /** Whether answer `k` reached the client: if not, or never told, its events count as lost. */
    | { t: 'delivered'; owner: string; sid: string; k: number; reached: boolean }
    /** A new instance listens: tell it every session. */
    | { t: 'hello' };

const PATTERN = 'rest-api.*.polling';
const INSTANCE = /^(rest-api\.\d+)\.polling$/;
/** How long a change waits for the other instances' copies: one that died keeps its alive state for a while. */
const ACK_WAIT_MS = 2_000;
/**
 * How long a poll waits to hear whether the previous answer, given by another instance, reached the
 * client (it is told as the answer finishes, so normally before the client's next poll arrives).
 */
const DELIVERY_WAIT_MS = 1_000;

function isSpec(value: unknown): value is SubscriptionSpec {
    const spec = value as SubscriptionSpec;
    return (
        !!spec &&
        (spec.kind === 'state' || spec.kind === 'object' || spec.kind === 'device') &&
        typeof spec.pattern === 'string' &&
        !!spec.filter &&
        typeof spec.filter === 'object'
    );
}

function isRecord(value: unknown): value is SessionRecord {
    const record = value as SessionRecord;
    return (
        !!record &&
        typeof record.owner === 'string' &&
        typeof record.sid === 'string' &&
        typeof record.timeout === 'number' &&
        Array.isArray(record.subs) &&
        record.subs.every(isSpec)
    );
}

function isNote(value: unknown): value is Note {
    const note = value as Note;
    switch (note?.t) {
        case 'session':
            return typeof note.n === 'number' && isRecord(note);
        case 'ack':
            return typeof note.to === 'string' && typeof note.n === 'number';
        case 'handed':
            return (
                typeof note.owner === 'string' &&
                typeof note.sid === 'string' &&
                typeof note.timeout === 'number' &&
                (note.k === undefined || typeof note.k === 'number') &&
                (note.lossReported === undefined || typeof note.lossReported === 'boolean') &&
                Array.isArray(note.events) &&
                note.events.every(e => typeof e === 'string')
            );
        case 'delivered':
            return (
                typeof note.owner === 'string' &&
                typeof note.sid === 'string' &&
                typeof note.k === 'number' &&
                typeof note.reached === 'boolean'
            );
        case 'hello':
            return true;
        default:
            return false;
    }
}

/** The session store key: owner and sid hashed, so a key names one user's session only. */
function recordKey(owner: string, sid: string): string {
    return `rest-api.polling.${createHash('sha256').update(`${owner}\u0000${sid}`).digest('hex').slice(0, 32)}`;
}

export interface ShareOptions {
    registry: PollingRegistry;
    storage: StoragePort;
    feed: ChangeFeed;
    namespace: string;
    peers: Pick<Peers, 'any' | 'alive'>;
    /** After it resolves, every notification published before was handled. */
    barrier: () => Promise<void>;
    timers: Timers;
}

export function sharePolling({
    registry,
    storage,
    feed,
    namespace,
    peers,
    barrier,
    timers,
}: ShareOptions): PollingShare & { start(): Promise<void> } {
    const id = `${namespace}.polling`;
    const warn = warnOnFailure(storage.log, 'Sharing a long-polling session with the other instances');
    const write = adminJsonState(storage, id, 'Long-polling sessions, shared by all rest-api instances');
    let counter = 0;
    const waitingAcks = new Map<number, { from: Set<string>; done(): void }>();
    /** When each session was last told of (record and note), to keep it alive elsewhere without a write per poll. */
    const toldAt = new WeakMap<PollingSession, number>();
    /** Changes of one session copied one after the other. */
    const copying = new Map<string, Promise<unknown>>();
    let answers = 0;
    /** Per session: the last answer another instance gave, until it tells that the answer reached the client. */
    const unconfirmed = new WeakMap<PollingSession, { from: string; k: number; count: number }>();
    const confirmedWaiters = new WeakMap<PollingSession, () => void>();

    /** Notes go out one by one, in order; resolves once this one is in the database. */
    const publish = (note: Note): Promise<void> => {
        return write(note).then(undefined, warn);
    };

    const recordOf = (session: PollingSession): SessionRecord => ({
        owner: session.user,
        sid: session.sid,
        timeout: session.timeout,
        subs: session.subscriptions.list(),
    });

    const writeRecord = (record: SessionRecord): Promise<void> =>
        new Promise<void>(resolve => {
            // kept three timeouts past the last poll: a session is collected after one and a half
            const ttl = Math.ceil((record.timeout * 3) / 1000);
            void storage.setSession(recordKey(record.owner, record.sid), ttl, record, err => {
                if (err) {
                    warn(err);
                }
                resolve();
            });
        });

    const readRecord = (owner: string, sid: string): Promise<SessionRecord | null> =>
        new Promise(resolve =>
            storage.getSession(recordKey(owner, sid), value => {
                // the key is a hash: the record must also name this very owner and sid
                resolve(isRecord(value) && value.owner === owner && value.sid === sid ? value : null);
            }),
        );

    /** Makes the local copy's subscriptions those of `record`. */
    const copy = async (session: PollingSession, record: SessionRecord): Promise<void> => {
        session.timeout = record.timeout;
        session.lastSeen = Date.now();
        const wanted = new Map(record.subs.map(spec => [`${spec.kind}:${spec.pattern}`, spec]));
        for (const have of session.subscriptions.list()) {
            const spec = wanted.get(`${have.kind}:${have.pattern}`);
            if (!spec) {
                await session.subscriptions.remove(have.kind, have.pattern);
            } else if (JSON.stringify(spec.filter) === JSON.stringify(have.filter)) {
                wanted.delete(`${have.kind}:${have.pattern}`);
            }
        }
        for (const spec of wanted.values()) {
            const subscription = await session.subscriptions.add(spec.kind, spec.pattern, spec.filter);
            if (
                spec.kind === 'state' &&
                (spec.filter.onchange || spec.filter.delta !== undefined) &&
                !spec.pattern.includes('*')
            ) {
                // the instance that took the subscription compares with the value of that moment: so does this copy
                const state = await storage.getForeignStateAsync(spec.pattern).catch(() => null);
                if (state) {
                    subscription.remember(spec.pattern, state.val);
                }
            }
        }
    };

    /** Copies a session another instance told of; false when it cannot be kept here (limits). */
    const copyFrom = (record: SessionRecord): Promise<boolean> => {
        const key = recordKey(record.owner, record.sid);
        const step = (copying.get(key) ?? Promise.resolve()).then(async () => {
            let session: PollingSession;
            try {
                session = registry.getOrCreate(record.owner, record.sid);
            } catch {
                return false;
            }
            await copy(session, record);
            // a session another instance emptied holds nothing here either
            registry.releaseIfIdle(session);
            return true;
        });
        const settled = step.catch(() => false);
        copying.set(key, settled);
        void settled.then(() => {
            if (copying.get(key) === settled) {
                copying.delete(key);
            }
        });
        return settled;
    };

    /** Tells every other instance of the session; resolves once the living ones copied it, or after ACK_WAIT_MS. */
    const announce = async (session: PollingSession, waitForCopies: boolean): Promise<void> => {
        const record = recordOf(session);
        toldAt.set(session, Date.now());
        await writeRecord(record);
        const n = ++counter;
        const others = new Set(peers.alive());
        const copied = new Promise<void>(resolve => {
            if (!waitForCopies || !others.size) {
                resolve();
                return;
            }
            const cancel = deadline(timers, ACK_WAIT_MS, done);
            function done(): void {
                cancel();
                waitingAcks.delete(n);
                resolve();
            }
            waitingAcks.set(n, { from: others, done });
        });
        await publish({ t: 'session', n, ...record });
        await copied;
    };

    const hear = (from: string, note: Note): void => {
        switch (note.t) {
            case 'session':
                void copyFrom(note).then(() => publish({ t: 'ack', to: from, n: note.n }));
                return;
            case 'ack': {
                const waiting = note.to === namespace ? waitingAcks.get(note.n) : undefined;
                if (waiting) {
                    waiting.from.delete(from);
                    if (!waiting.from.size) {
                        waiting.done();
                    }
                }
                return;
            }
            case 'handed': {
                const session = registry.get(note.owner, note.sid);
                if (session) {
                    session.timeout = note.timeout;
                    session.lastSeen = Date.now();
                    session.handedOut(note.events);
                    if (note.lossReported) {
                        session.lossReported();
                    }
                    if (unconfirmed.get(session)?.from !== from) {
                        // an answer of another instance came after it: that one settled the earlier answer
                        unconfirmed.delete(session);
                    }
                    if (note.k !== undefined && note.events.length) {
                        unconfirmed.set(session, { from, k: note.k, count: note.events.length });
                    }
                }
                return;
            }
            case 'delivered': {
                const session = registry.get(note.owner, note.sid);
                const waiting = session && unconfirmed.get(session);
                if (session && waiting?.from === from && waiting.k === note.k) {
                    unconfirmed.delete(session);
                    if (!note.reached) {
                        session.markLost(waiting.count);
                    }
                    confirmedWaiters.get(session)?.();
                }
                return;
            }
            case 'hello':
                for (const session of registry.all()) {
                    void announce(session, false);
                }
                return;
        }
    };

    return {
        active: peers.any,

        async find(owner, sid, create, claim = false) {
            const here = registry.get(owner, sid);
            if (here) {
                here.claims += claim ? 1 : 0;
                return here;
            }
            const record = await readRecord(owner, sid);
            // a record without patterns holds nothing to resume: the session starts anew, as it would alone
            if (record?.subs.length) {
                // another instance held it: what it had queued and not handed out did not reach this copy
                const session = registry.getOrCreate(owner, sid);
                // claimed before anything waits: a note copied meanwhile must not release it
                session.claims += claim ? 1 : 0;
                if (!session.subscriptions.size) {
                    await copyFrom(record);
                    session.markLost();
                }
                return session;
            }
            if (!create) {
                return undefined;
            }
            const session = registry.getOrCreate(owner, sid);
            session.claims += claim ? 1 : 0;
            await announce(session, true);
            return session;
        },

        changed: session => announce(session, true),

        async beforePoll(session) {
            // the notes of polls answered elsewhere before this one arrived are applied
            await barrier();
            const previous = unconfirmed.get(session);
            if (previous) {
                // the previous answer came from another instance: did it reach the client? An instance
                // that died while answering never says so, and its events count as lost
                await new Promise<void>(resolve => {
                    const cancel = deadline(timers, DELIVERY_WAIT_MS, resolve);
                    confirmedWaiters.set(session, () => {
                        cancel();
                        resolve();
                    });
                });
                confirmedWaiters.delete(session);
                if (unconfirmed.get(session) === previous) {
                    unconfirmed.delete(session);
                    session.markLost(previous.count);
                }
            }
            if (Date.now() - (toldAt.get(session) ?? 0) > session.timeout / 3) {
                // polled here only: the others' copies must not be collected, nor the record expire
                toldAt.set(session, Date.now());
                void writeRecord(recordOf(session));
                void publish({
                    t: 'handed',
                    owner: session.user,
                    sid: session.sid,
                    timeout: session.timeout,
                    events: [],
                });
            }
        },

        async handed(session, answer: Answer): Promise<Handout | undefined> {
            const events = answerIdentities(answer);
            const lossReported = reportsLoss(answer);
            if (!events.length && !lossReported) {
                return undefined;
            }
            const k = ++answers;
            toldAt.set(session, Date.now());
            await publish({
                t: 'handed',
                owner: session.user,
                sid: session.sid,
                timeout: session.timeout,
                events,
                k,
                ...(lossReported ? { lossReported } : {}),
            });
            return events.length ? { k, count: events.length } : undefined;
        },

        delivered(session, handout, reached) {
            if (!reached) {
                session.markLost(handout.count);
            }
            void publish({ t: 'delivered', owner: session.user, sid: session.sid, k: handout.k, reached });
        },

        async start() {
            await feed.listen('state', PATTERN, (from, state) => {
                const instance = INSTANCE.exec(from)?.[1];
                const val = (state as ioBroker.State | null)?.val;
                if (!instance || instance === namespace || typeof val !== 'string') {
                    return;
                }
                try {
                    const note: unknown = JSON.parse(val);
                    if (isNote(note)) {
                        hear(instance, note);
                    }
                } catch {
                    // not ours to read: only instances write here
                }
            });
            if (peers.any()) {
                // instances that started earlier tell this one of their sessions (alone: nothing to hear, nothing written)
                void publish({ t: 'hello' });
            }
        },
    };
}
