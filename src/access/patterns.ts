import { paramsError } from '../http/parse-params';

/*
 * Every ioBroker id pattern passes here before it is matched, ours or js-controller's. js-controller
 * turns each `*` into `.*` and matches with a backtracking regular expression inside its database
 * servers: `*a*a*a*!` against a long id takes seconds there, and every other client waits. Runs of
 * `*` collapse (they match the same ids), and the wildcards that can backtrack are bounded.
 */

/** The longest id or pattern; also the longest path parameter the router takes. */
export const MAX_PATTERN_LENGTH = 1000;
/**
 * Wildcards that can backtrack: each `*` followed by more text, and one more for a leading `*`
 * (js-controller leaves such a pattern unanchored). Three keep a failing match below ~30 ms on a
 * 250-character id; `hm-rpc.0.*.STATE` costs 1, `*.temperature` 2, a trailing `*` nothing.
 */
export const MAX_PATTERN_WILDCARDS = 3;

/** js-controller's FORBIDDEN_CHARS, with `*` allowed: an id breaking it throws where nothing catches it. */
const FORBIDDEN_IN_PATTERN = /[^._\-/ :!#$%&()+=@^{}|~*\p{Ll}\p{Lu}\p{Nd}]/u;

export function isPattern(id: string): boolean {
    return id.includes('*');
}

/** The same pattern with each run of `*` as one. */
export function collapseStars(pattern: string): string {
    return pattern.includes('**') ? pattern.replace(/\*{2,}/g, '*') : pattern;
}

/** The backtracking cost of a collapsed pattern, as MAX_PATTERN_WILDCARDS counts it. */
export function wildcardCost(pattern: string): number {
    let cost = pattern.startsWith('*') ? 1 : 0;
    for (let i = pattern.indexOf('*'); i !== -1 && i < pattern.length - 1; i = pattern.indexOf('*', i + 1)) {
        cost++;
    }
    return cost;
}

/** Why a collapsed pattern may not be matched, or undefined when it may. */
function patternProblem(pattern: string): string | undefined {
    if (FORBIDDEN_IN_PATTERN.test(pattern) || pattern.length > MAX_PATTERN_LENGTH) {
        return `must be at most ${MAX_PATTERN_LENGTH} characters without control characters or []?,;'"\`<>\\`;
    }
    if (wildcardCost(pattern) > MAX_PATTERN_WILDCARDS) {
        return `may have at most ${MAX_PATTERN_WILDCARDS} wildcards (*) before its end, a leading * counting twice`;
    }
    return undefined;
}

/** The pattern as it may be matched (runs of `*` collapsed), or a 422 naming `param`. */
export function safePattern(param: string, pattern: string): string {
    const collapsed = collapseStars(pattern);
    const problem = patternProblem(collapsed);
    if (problem) {
        throw paramsError([{ param, problem }], []);
    }
    return collapsed;
}

/** Refuses (422) an id or pattern that must not reach a pattern match. */
export function assertSafePattern(param: string, pattern: string): void {
    safePattern(param, pattern);
}

/** ioBroker id patterns: `*` matches any run of characters, everything else literally. */
export function patternToRegExp(pattern: string): RegExp {
    const escaped = collapseStars(pattern)
        .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
        .replace(/\*/g, '.*');
    return new RegExp(`^${escaped}$`);
}
