import { booleanFromText } from './boolean-text';

/** Query values as 4.0.2 clients send them: `+` is a space, a bare `?key` is `null`, the last repeat wins. */
export type Query = Record<string, string | null>;

function decode(text: string): string {
    const spaced = text.replace(/\+/g, ' ');
    try {
        return decodeURIComponent(spaced);
    } catch {
        return spaced;
    }
}

export function parseQuery(search: string): Query {
    const query: Query = Object.create(null);
    if (!search) {
        return query;
    }
    for (const pair of search.split('&')) {
        if (!pair) {
            continue;
        }
        const eq = pair.indexOf('=');
        const key = decode(eq === -1 ? pair : pair.slice(0, eq));
        query[key] = eq === -1 ? null : decode(pair.slice(eq + 1));
    }
    return query;
}

/** A flag from the query or a JSON body: `true`, or text like "true" (4.0.2 accepted only the text "true"). */
export function isTrueFlag(value: unknown): boolean {
    return value === true || (typeof value === 'string' && booleanFromText(value) === true);
}
