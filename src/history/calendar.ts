/*
 * Calendar buckets of a time zone: an hour, a day, a week (from Monday, ISO 8601) or a month as the
 * clock on the wall counts them. A day across a daylight-saving change is 23 or 25 hours, which a
 * fixed step in ms cannot say.
 */
import { dateTime } from './luxon';

export const PERIODS = ['hour', 'day', 'week', 'month'] as const;
export type Period = (typeof PERIODS)[number];

/** The start of the bucket holding `ts`. */
export function bucketStart(ts: number, period: Period, zone: string): number {
    return dateTime().fromMillis(ts, { zone }).startOf(period).toMillis();
}

/** The start of the bucket after the one starting at `start`; always later than `start`. */
export function nextBucket(start: number, period: Period, zone: string): number {
    const next = dateTime()
        .fromMillis(start, { zone })
        .plus({ [`${period}s`]: 1 })
        .startOf(period)
        .toMillis();
    // a zone that turns its clock back by half an hour (Australia/Lord_Howe) gives the same hour again
    return next > start ? next : start + 3_600_000;
}

/** The starts of every bucket that overlaps [start, end). */
export function bucketStarts(start: number, end: number, period: Period, zone: string): number[] {
    const starts: number[] = [];
    for (let at = bucketStart(start, period, zone); at < end; at = nextBucket(at, period, zone)) {
        starts.push(at);
    }
    return starts;
}
