/*
 * CSV as RFC 4180 has it: fields separated by commas, records ended by CRLF, a field quoted when it
 * holds a comma, a quote, a line break or leading or trailing space, quotes inside doubled. Empty
 * for no value; numbers and booleans as JSON writes them; objects as their JSON text.
 */

const NEEDS_QUOTES = /[",\r\n]|^\s|\s$/;

export function csvField(value: unknown): string {
    if (value === null || value === undefined) {
        return '';
    }
    const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
    return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvRecord(fields: readonly unknown[]): string {
    return `${fields.map(csvField).join(',')}\r\n`;
}
