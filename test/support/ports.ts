import { connect, createServer } from 'node:net';

// Below Linux's ephemeral range (32768-60999): a port a test frees and binds again (a restart) can
// otherwise be taken meanwhile as the source port of some outgoing connection of a parallel test file.
const LOW = 20_000;
const HIGH = 32_000;

function tryListen(port: number): Promise<boolean> {
    return new Promise(resolve => {
        const server = createServer();
        server.once('error', () => resolve(false));
        server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
}

/** A currently free loopback port outside the range the OS hands out for outgoing connections. */
export async function freePort(): Promise<number> {
    for (let attempt = 0; attempt < 200; attempt++) {
        const port = LOW + Math.floor(Math.random() * (HIGH - LOW));
        if (await tryListen(port)) {
            return port;
        }
    }
    throw new Error(`no free port between ${LOW} and ${HIGH}`);
}

/**
 * Resolves once something listens on the loopback `port`; throws `failure()` once `proc` ended or after
 * a minute.
 */
export async function listeningOn(
    port: number,
    proc: { exitCode: number | null },
    failure = (): string => `nothing listens on port ${port}`,
): Promise<void> {
    const deadline = Date.now() + 60_000;
    for (;;) {
        const open = await new Promise<boolean>(resolve => {
            const socket = connect(port, '127.0.0.1', () => {
                socket.destroy();
                resolve(true);
            });
            socket.on('error', () => resolve(false));
        });
        if (open) {
            return;
        }
        if (proc.exitCode !== null || Date.now() > deadline) {
            throw new Error(failure());
        }
        await new Promise(resolve => setTimeout(resolve, 100));
    }
}
