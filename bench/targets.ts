/*
 * The performance issue's targets, checked against a compare run's summary: one compact table with
 * each target's value and pass or fail. A value that could not be measured (no release, nothing
 * arrived) is `n/a`, never a pass; receivers lost by our side fail their target whatever the ratio.
 */

export interface Summary {
    release: string | null;
    polls: { oursToBare?: number; oursToRelease?: number; oursLost: number };
    sse: { p99OursToBare?: number; lastOursToBare?: number; oursLost: number };
    hooks: { lastOursToBare?: number; p99OursToBare?: number; lastOursToRelease?: number; oursLost: number };
    /** The first size is the hot set. */
    random: { states: number; oursToRelease?: number; p99Ms: number; releaseP99Ms?: number; oursToBare: number }[];
    http: { scenario: string; oursToBare?: number; oursToRelease?: number }[];
    memory: { idleOursToRelease?: number; peakOursToRelease?: number };
}

export interface TargetRow {
    target: string;
    value: number | string;
    goal: string;
    result: 'pass' | 'FAIL' | 'n/a';
}

/** A ratio rounded to two places; undefined when either side is missing or nothing was measured. */
export function ratio(ours: number | undefined, other: number | undefined): number | undefined {
    return ours !== undefined && other !== undefined && Number.isFinite(ours) && Number.isFinite(other) && other > 0 ? Math.round((ours / other) * 100) / 100 : undefined;
}

function row(target: string, value: number | undefined, op: '<=' | '>=', goal: number, lost = 0): TargetRow {
    const met = value === undefined ? undefined : op === '<=' ? value <= goal : value >= goal;
    return {
        target,
        value: value === undefined ? '–' : lost ? `${value} (${lost} lost)` : value,
        goal: `${op === '<=' ? '≤' : '≥'} ${goal}`,
        result: met === undefined ? 'n/a' : met && !lost ? 'pass' : 'FAIL',
    };
}

export function targetTable(s: Summary): TargetRow[] {
    const rel = s.release ?? 'release';
    const [hot, ...large] = s.random;
    const getState = s.http.find(h => h.scenario === 'GET /v1/state/:id');
    return [
        row(`polls p99 ours/${rel}`, s.polls.oursToRelease, '<=', 0.8, s.polls.oursLost),
        row('polls p99 ours/bare', s.polls.oursToBare, '<=', 1.2, s.polls.oursLost),
        row('SSE p99 ours/bare', s.sse.p99OursToBare, '<=', 1.2, s.sse.oursLost),
        row('SSE last receiver ours/bare', s.sse.lastOursToBare, '<=', 1.2, s.sse.oursLost),
        row('hooks last receiver ours/bare', s.hooks.lastOursToBare, '<=', 1.2, s.hooks.oursLost),
        ...large.flatMap(r => [row(`random ${r.states} ours/${rel}`, r.oursToRelease, '>=', 2), row(`random ${r.states} ours p99 ms`, r.p99Ms, '<=', 15)]),
        ...(hot ? [row(`hot set (${hot.states}) ours/bare`, hot.oursToBare, '>=', 0.5)] : []),
        row('GET state ours/bare', getState?.oursToBare, '>=', 0.6),
        ...s.http.map(h => row(`${h.scenario} ours/${rel}`, h.oursToRelease, '>=', h.scenario.startsWith('PATCH') ? 2.5 : 5)),
        row(`idle RSS ours/${rel}`, s.memory.idleOursToRelease, '<=', 0.9),
        row(`peak RSS ours/${rel}`, s.memory.peakOursToRelease, '<=', 0.5),
    ];
}
