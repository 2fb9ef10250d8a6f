/*
 * Times of a history request: ms since 1970, ISO 8601 (a date or time without an offset is read in the
 * request's time zone, as a person means it), or relative to now (`now`, `-24h`, `now-7d`, `-90m`).
 */
import { dateTime } from './luxon';

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
const RELATIVE = /^(?:now)?(?:([+-])(\d+(?:\.\d+)?)([smhdw]))?$/;
const ISO = /^\d{4}-\d{2}(?:-\d{2})?(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?$/;

/** The last ms of the year 9999: later times have no ISO 8601 form with four digits, and no history. */
export const MAX_TIME = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
const OUT_OF_RANGE = { problem: 'must be between 1970 and the year 9999' };

/** The time `text` names, in ms from 1970 to 9999, or a problem to report; `now` is passed in so one request has one now. */
export function parseTime(text: unknown, now: number, zone: string): number | { problem: string } {
    const time = anyTime(text, now, zone);
    return typeof time === 'number' && (time < 0 || time > MAX_TIME) ? OUT_OF_RANGE : time;
}

function anyTime(text: unknown, now: number, zone: string): number | { problem: string } {
    if (typeof text === 'number') {
        return Number.isFinite(text) && text >= 0 ? text : { problem: 'must be ms since 1970 (0 or more)' };
    }
    const value = String(text).trim();
    // no negative ms: `-24` is a relative time without its unit far more often than a time before 1970
    if (/^\d+(?:\.\d+)?$/.test(value)) {
        return Number(value);
    }
    const relative = value === '' ? null : RELATIVE.exec(value);
    if (relative) {
        const [, sign, amount, unit] = relative;
        return sign ? now + (sign === '-' ? -1 : 1) * Number(amount) * UNIT_MS[unit] : now;
    }
    if (ISO.test(value)) {
        const parsed = dateTime().fromISO(value.replace(' ', 'T'), { zone });
        if (parsed.isValid) {
            return parsed.toMillis();
        }
    }
    return { problem: 'must be ms since 1970, ISO 8601 (e.g. 2026-11-28T06:00) or relative (now, -24h, -7d, now-30m)' };
}

/** Spellings remembered with their canonical zone (or none): a bound, as every cache has one. */
export const ZONE_SPELLINGS = 512;
const spellings = new Map<string, string | null>();

/**
 * The canonical name of the time zone `name` (`europe/BERLIN` and `Europe/Berlin` both
 * `Europe/Berlin`, `Etc/UTC` and `gmt` `UTC`), or undefined for no known zone. Only canonical names
 * reach luxon, which keeps a zone and a formatter for every spelling it is given, for good.
 */
export function knownZone(name: string): string | undefined {
    const key = name.toLowerCase();
    let canonical = spellings.get(key);
    if (canonical === undefined) {
        canonical = resolvedZone(name);
        if (spellings.size >= ZONE_SPELLINGS) {
            // the oldest spelling goes: asking the time zone data again costs a few microseconds
            spellings.delete(spellings.keys().next().value!);
        }
        spellings.set(key, canonical);
    }
    return canonical ?? undefined;
}

function resolvedZone(name: string): string | null {
    if (!name || name.length > 64) {
        return null;
    }
    try {
        return new Intl.DateTimeFormat('en', { timeZone: name }).resolvedOptions().timeZone ?? null;
    } catch {
        return null;
    }
}

/** How many spellings are remembered now (for tests of the bound). */
export const zoneSpellingsHeld = (): number => spellings.size;

/** This machine's time zone: the default of statistics and of the ISO column. */
export function systemZone(): string {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/** Zones change their offset only at a quarter hour (UTC): one offset holds for a quarter hour. */
const QUARTER_MS = 15 * 60_000;
const offsets = new Map<string, { from: number; minutes: number }>();

/** The offset of `zone` at `ts` in minutes, asked of the time zone data once per zone and quarter hour. */
function offsetMinutes(ts: number, zone: string): number {
    const from = ts - (((ts % QUARTER_MS) + QUARTER_MS) % QUARTER_MS);
    let known = offsets.get(zone);
    if (known?.from !== from) {
        known = { from, minutes: dateTime().fromMillis(from, { zone }).offset };
        if (!offsets.has(zone) && offsets.size >= ZONE_SPELLINGS) {
            offsets.clear();
        }
        offsets.set(zone, known);
    }
    return known.minutes;
}

const two = (n: number): string => String(n).padStart(2, '0');

/**
 * `ts` as ISO 8601 with the offset of `zone` (what a spreadsheet or Grafana shows as local time), `Z`
 * for UTC. A CSV export writes one per row: the zone's offset is looked up once per quarter hour.
 */
export function isoIn(ts: number, zone: string): string {
    if (!(ts >= 0 && ts <= MAX_TIME)) {
        // a value stored with a time no date has: its ts column says what it is
        return '';
    }
    const minutes = offsetMinutes(ts, zone);
    const local = new Date(ts + minutes * 60_000).toISOString().slice(0, -1);
    if (zone === 'UTC') {
        return `${local}Z`;
    }
    const size = Math.abs(minutes);
    return `${local}${minutes < 0 ? '-' : '+'}${two(Math.floor(size / 60))}:${two(size % 60)}`;
}
