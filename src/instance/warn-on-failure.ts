/** A catch that leaves a trace: the failure is logged as a warning naming what failed, and the caller goes on. */
export function warnOnFailure(log: Pick<ioBroker.Logger, 'warn'>, what: string): (err: unknown) => void {
    return err => log.warn(`${what} failed: ${err instanceof Error ? err.message : String(err)}`);
}
