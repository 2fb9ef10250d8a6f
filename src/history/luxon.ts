/*
 * luxon is loaded by the first history request that needs a calendar, not at start: its source alone
 * is 0.5 MB of the idle heap (V8 keeps it at two bytes a character), in every installation, most of
 * which never ask for a series by calendar days.
 */
import type * as Luxon from 'luxon';

let loaded: typeof Luxon.DateTime | undefined;

/** luxon's DateTime, loaded on first use. */
export function dateTime(): typeof Luxon.DateTime {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    loaded ??= (require('luxon') as typeof Luxon).DateTime;
    return loaded;
}
