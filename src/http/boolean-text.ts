const TRUE = new Set(['true', '1', 'on', 'yes']);
const FALSE = new Set(['false', '0', 'off', 'no']);

/** The words users write for booleans (any case); `undefined` for anything else. */
export function booleanFromText(text: string): boolean | undefined {
    const word = text.trim().toLowerCase();
    return TRUE.has(word) ? true : FALSE.has(word) ? false : undefined;
}
