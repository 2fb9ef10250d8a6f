/*
 * What the in-process adapter logs, at every level: the lines a spawned adapter writes to its output,
 * for tests that check secrets never reach the log. Levels below the instance's log level are kept
 * too, so the check is at least as strict as on the process's output.
 */
const LEVELS = ['silly', 'debug', 'info', 'warn', 'error'] as const;

export function captureLog(adapter: ioBroker.Adapter): () => string {
    const lines: string[] = [];
    const log = adapter.log as unknown as Record<(typeof LEVELS)[number], (message: string) => void>;
    for (const level of LEVELS) {
        const original = log[level].bind(log);
        log[level] = (message: string) => {
            lines.push(`${level}: ${message}`);
            original(message);
        };
    }
    return () => lines.join('\n');
}
