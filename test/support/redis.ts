/*
 * A redis-server child on a random loopback port for the Redis storage variant. It keeps its data
 * in an append-only file, so stopping and starting it (bounce) loses nothing that was written.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { CONTROLLER_DIR } from '../../scripts/embedded-storage';
import { stopProcess } from '../../scripts/stop-process';
import { freePort } from './ports';

export function hasRedis(): boolean {
    try {
        execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
        return true;
    } catch {
        return false;
    }
}

/** iobroker.json pointing both databases at Redis, as `iobroker setup custom` would write it. */
export function writeRedisConfig(dataDir: string, port: number): void {
    const config = JSON.parse(readFileSync(join(CONTROLLER_DIR, 'conf', 'iobroker-dist.json'), 'utf8'));
    for (const db of ['objects', 'states']) {
        Object.assign(config[db], { type: 'redis', host: '127.0.0.1', port });
    }
    config.dataDir = relative(CONTROLLER_DIR, dataDir) + '/';
    writeFileSync(join(dataDir, 'iobroker.json'), JSON.stringify(config, null, 2));
}

export interface RedisServer {
    port: number;
    /** Stops redis-server for `pauseMs` and starts it again on the same port and data. */
    bounce(pauseMs: number): Promise<void>;
    close(): Promise<void>;
}

function accepts(port: number): Promise<boolean> {
    return new Promise(resolve => {
        const socket = createConnection({ port, host: '127.0.0.1' });
        socket.once('connect', () => (socket.destroy(), resolve(true)));
        socket.once('error', () => resolve(false));
    });
}

export async function startRedis(): Promise<RedisServer> {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'rest-api-redis-'));
    let proc: ChildProcess | null = null;
    const start = async (): Promise<void> => {
        proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'yes', '--appendfsync', 'always'], { stdio: 'ignore' });
        for (let i = 0; i < 100 && !(await accepts(port)); i++) {
            await new Promise(r => setTimeout(r, 50));
        }
    };
    await start();
    return {
        port,
        async bounce(pauseMs) {
            await stopProcess(proc);
            await new Promise(r => setTimeout(r, pauseMs));
            await start();
        },
        async close() {
            await stopProcess(proc);
            rmSync(dir, { recursive: true, force: true });
        },
    };
}
