/*
 * The accept queue, tried as 1,000 clients reconnecting at once (long polls after a restart) while
 * the adapter is too busy to accept: the kernel completes every handshake and holds the connection
 * for us, instead of dropping SYNs beyond Node's default of 511 for a retry a second or more later.
 */
import { spawnSync } from 'node:child_process';
import { createServer as createPlainServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { normalizeConfig } from '../../src/instance/config';
import { ACCEPT_QUEUE, close, createServer, listen } from '../../src/http/server';

const CLIENTS = 1000;

/**
 * Connects CLIENTS sockets from another process while this one is blocked (spawnSync: our event loop
 * accepts nothing meanwhile) and answers how many handshakes the kernel completed within 1.5 s.
 */
function handshakesWhileBusy(port: number): number {
    const script = `
        const { connect } = require('node:net');
        let connected = 0;
        for (let i = 0; i < ${CLIENTS}; i++) {
            const socket = connect(${port}, '127.0.0.1', () => connected++);
            socket.on('error', () => undefined);
        }
        setTimeout(() => { process.stdout.write(String(connected)); process.exit(0); }, 1500);`;
    const child = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 20_000 });
    return Number(child.stdout);
}

const portOf = (server: Server): number => (server.address() as AddressInfo).port;

t.test('the kernel takes every connection while the adapter is busy', async t => {
    t.ok(ACCEPT_QUEUE >= CLIENTS * 2, 'room for a reconnect storm');
    const server = createServer(normalizeConfig({}), (_req, res) => res.end());
    await listen(server, 0, '127.0.0.1');
    t.teardown(() => close(server, 0));
    t.equal(handshakesWhileBusy(portOf(server)), CLIENTS);
});

t.test('control: with Node\'s default queue the same clients are not all taken', async t => {
    const server = createPlainServer((_req, res) => res.end());
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
    t.teardown(() => {
        server.closeAllConnections();
        server.close();
    });
    const taken = handshakesWhileBusy(portOf(server));
    t.ok(taken > 0 && taken < CLIENTS, `${taken} of ${CLIENTS} taken`);
});
