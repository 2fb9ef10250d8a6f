import type { Timers } from '../instance/timers';
import type { StorageLink } from './link-state';

interface Reporter {
    log: Pick<ioBroker.Logger, 'warn' | 'info'>;
    /** Writes `info.connection`; while the database is away this may fail, which is expected. */
    setConnection(up: boolean): Promise<unknown>;
    now?: () => number;
}

/**
 * The storage link in the log and in `info.connection`: one warning when it goes, one line with the
 * outage's length when it is back, so an outage a user asks about afterwards can be found.
 */
export function reportLink(link: Pick<StorageLink, 'on'>, { log, setConnection, now = Date.now }: Reporter): void {
    let lostAt: number | null = null;
    link.on('change', (up: boolean) => {
        if (!up) {
            lostAt = now();
            log.warn('Lost the connection to the ioBroker database; change notifications wait until it is back');
        } else if (lostAt !== null) {
            log.info(`Connection to the ioBroker database is back after ${((now() - lostAt) / 1000).toFixed(1)} s`);
            lostAt = null;
        }
        // written again once the link is back, so a write lost during the outage is made good
        setConnection(up).catch(() => undefined);
    });
}

/**
 * Calls `giveUp` once the link has been down for `ms` without a break. An adapter whose launcher or
 * database is gone must not wait on: js-controller's own client gives up only after about 100 s of
 * retries, while what the adapter holds for its clients grows.
 */
export function giveUpAfter(
    link: Pick<StorageLink, 'on'>,
    ms: number,
    timers: Pick<Timers, 'setTimeout' | 'clearTimeout'>,
    giveUp: () => void,
): void {
    let timer: ReturnType<Timers['setTimeout']>;
    link.on('change', (up: boolean) => {
        timers.clearTimeout(timer);
        timer = up ? undefined : timers.setTimeout(giveUp, ms);
    });
}
