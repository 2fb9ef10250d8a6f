/*
 * CSV as RFC 4180 has it: fields separated by commas, records ended by CRLF, quotes inside doubled.
 * A state's text comes from devices and messages, not from the user, so no cell may become a formula
 * in a spreadsheet (OWASP's CSV injection rules), whichever separator the spreadsheet splits on:
 * `,` (RFC 4180), `;` (the German and French default) or a tab. A spreadsheet that splits on `;`
 * ignores the quotes of a comma file and starts a cell after every `;`, tab or line break inside a
 * field, so each of those sub-cells is neutralised too.
 */

/** Quoted: a separator of any of the three kinds, a quote, a line break, leading or trailing space. */
const NEEDS_QUOTES = /[",;\t\r\n]|^\s|\s$/;
/**
 * Where a spreadsheet may start a cell (the field's start, or after a `,` `;` tab or line break),
 * then spaces and quotes it may drop, then a character that starts a formula: = + - @ tab CR.
 */
const FORMULA_START = /(^|[,;\t\r\n])([ "']*)(?=[=+\-@\t\r])/g;

/** Text with an apostrophe before every formula start (as OWASP advises: then it is text in Excel and Calc). */
export function neutralised(text: string): string {
    return text.replace(FORMULA_START, (_, before: string, skipped: string) => `${before}${skipped}'`);
}

export function csvField(value: unknown): string {
    if (value === null || value === undefined) {
        return '';
    }
    if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
        // a number stays a number (-5 is no formula); its text has no separator
        return String(value);
    }
    const text = neutralised(typeof value === 'object' ? JSON.stringify(value) : String(value));
    return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvRecord(fields: readonly unknown[]): string {
    return `${fields.map(csvField).join(',')}\r\n`;
}
