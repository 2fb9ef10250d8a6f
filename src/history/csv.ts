/*
 * CSV as RFC 4180 has it: fields separated by commas, records ended by CRLF, a field quoted when it
 * holds a comma, a quote, a line break or leading or trailing space, quotes inside doubled. Empty
 * for no value; numbers and booleans as JSON writes them; objects as their JSON text; text that
 * starts like a formula (= + - @) with an apostrophe first.
 */

const NEEDS_QUOTES = /[",\r\n]|^\s|\s$/;
/** Text a spreadsheet would run as a formula: a state's text comes from devices and messages, not from the user. */
const FORMULA_START = /^[=+\-@\t\r]/;

export function csvField(value: unknown): string {
    if (value === null || value === undefined) {
        return '';
    }
    let text = typeof value === 'object' ? JSON.stringify(value) : String(value);
    if (typeof value === 'string' && FORMULA_START.test(text)) {
        // as OWASP advises: an apostrophe first makes it text in Excel and Calc; numbers stay as they are
        text = `'${text}`;
    }
    return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvRecord(fields: readonly unknown[]): string {
    return `${fields.map(csvField).join(',')}\r\n`;
}
