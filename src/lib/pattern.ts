import { paramsError } from '../parse-params';

/** ioBroker id patterns: `*` matches any run of characters, everything else literally. */
export function patternToRegExp(pattern: string): RegExp {
    const escaped = pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*');
    return new RegExp(`^${escaped}$`);
}

export function isPattern(id: string): boolean {
    return id.includes('*');
}

/**
 * js-controller's FORBIDDEN_CHARS, with `*` allowed. An id or pattern that breaks it, or a very long
 * one, becomes a regular expression inside js-controller that throws where nothing catches it: in its
 * jsonl/file DB servers (subscriptions; the whole host stops) or in the adapter (recursive deletes).
 */
const FORBIDDEN_IN_PATTERN = /[^._\-/ :!#$%&()+=@^{}|~*\p{Ll}\p{Lu}\p{Nd}]/u;
/** The longest path parameter the router takes, too. */
export const MAX_PATTERN_LENGTH = 1000;

/** Refuses (422) an id or pattern that must not reach js-controller's pattern matching. */
export function assertSafePattern(param: string, pattern: string): void {
    if (FORBIDDEN_IN_PATTERN.test(pattern) || pattern.length > MAX_PATTERN_LENGTH) {
        throw paramsError([{ param, problem: `must be at most ${MAX_PATTERN_LENGTH} characters without control characters or []?,;'"\`<>\\` }], []);
    }
}
