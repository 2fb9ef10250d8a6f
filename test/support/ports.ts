import { createServer } from 'node:net';

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
