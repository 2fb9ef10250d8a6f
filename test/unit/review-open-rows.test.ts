/* Review: CSV cells that a spreadsheet splitting on `;` or a tab would run as a formula (issue 52, row 8). */
import t from 'tap';
import { csvField } from '../../src/history/csv';

t.test('a text with a formula after a semicolon or a tab is quoted (one cell for a reader that splits on it)', async t => {
    for (const text of ['a;=1+1', 'a\t=1+1', 'x;@SUM(A1)', 'x;-2+3']) {
        const cell = csvField(text);
        t.match(cell, /^"/, `${JSON.stringify(text)} is quoted: ${cell}`);
    }
});

t.test('zone names are canonical before they reach a cache (issue 52, row 5)', async t => {
    const { knownZone } = await import('../../src/history/times');
    t.equal(knownZone('eUrOpE/bErLiN'), 'Europe/Berlin', 'another spelling names the one zone');
});
