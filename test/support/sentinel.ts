/*
 * The Sentinel set-up of docs/en/several-instances.md on loopback: a primary, a replica and three
 * sentinels, the replica's and the sentinels' configuration taken from the guide as written (only the
 * documented addresses and ports replaced), and iobroker.json's sections from the guide too.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { CONTROLLER_DIR } from '../../scripts/embedded-storage';
import { stopProcess } from '../../scripts/stop-process';
import type { ClusterStore } from './cluster';
import { documentedConfig, substitute } from './doc-proxy';
import { freePort } from './ports';

const GUIDE = 'several-instances.md';
const PRIMARY = '192.168.1.20 6379';
const SENTINELS = ['192.168.1.21', '192.168.1.22', '192.168.1.23'];

export interface SentinelSet extends ClusterStore {
    primaryPort: number;
    replicaPort: number;
    /** SIGKILL to the primary, as when its machine dies. */
    killPrimary(): Promise<void>;
    /** The port of the Redis the sentinels name as primary now. */
    currentPrimary(): Promise<number>;
}

/** One Redis command over a fresh connection, its answer as raw text (enough for the few asked here). */
function ask(port: number, ...words: string[]): Promise<string> {
    return new Promise((resolve, reject) => {
        const socket = createConnection({ port, host: '127.0.0.1' });
        let answer = '';
        socket.setTimeout(2000, () => socket.destroy(new Error('no answer')));
        socket.on('data', d => {
            answer += d;
            if (answer.endsWith('\r\n')) {
                socket.end();
                resolve(answer);
            }
        });
        socket.on('error', reject);
        socket.write(`*${words.length}\r\n${words.map(w => `$${Buffer.byteLength(w)}\r\n${w}\r\n`).join('')}`);
    });
}

async function answers(port: number): Promise<boolean> {
    for (let i = 0; i < 100; i++) {
        if (await ask(port, 'PING').then(a => a.startsWith('+PONG'), () => false)) {
            return true;
        }
        await new Promise(r => setTimeout(r, 50));
    }
    throw new Error(`redis on ${port} did not start`);
}

export async function startSentinelSet(): Promise<SentinelSet> {
    const dir = mkdtempSync(join(tmpdir(), 'rest-api-sentinel-'));
    const children: ChildProcess[] = [];
    const run = (args: string[]): ChildProcess => {
        const child = spawn('redis-server', args, { stdio: 'ignore' });
        children.push(child);
        return child;
    };
    const primaryPort = await freePort();
    const replicaPort = await freePort();
    const sentinelPorts = [await freePort(), await freePort(), await freePort()];
    const primaryAt = `127.0.0.1 ${primaryPort}`;
    const primary = run(['--port', String(primaryPort), '--bind', '127.0.0.1', '--dir', dir, '--dbfilename', 'primary.rdb', '--appendonly', 'yes', '--appendfilename', 'primary.aof', '--appendfsync', 'always']);
    await answers(primaryPort);

    const replicaConf = join(dir, 'replica.conf');
    writeFileSync(replicaConf, `port ${replicaPort}\nbind 127.0.0.1\ndir ${dir}\ndbfilename replica.rdb\n${substitute(documentedConfig(GUIDE, 'conf title=replica'), { [PRIMARY]: primaryAt })}`);
    run([replicaConf]);
    await answers(replicaPort);
    // the replica has the primary's data before any sentinel may promote it
    for (let i = 0; i < 100 && !/master_link_status:up/.test(await ask(replicaPort, 'INFO', 'replication').catch(() => '')); i++) {
        await new Promise(r => setTimeout(r, 100));
    }

    const sentinel = documentedConfig(GUIDE, 'conf title=sentinel');
    for (const [n, port] of sentinelPorts.entries()) {
        const file = join(dir, `sentinel-${n}.conf`);
        writeFileSync(file, `bind 127.0.0.1\ndir ${dir}\n${substitute(sentinel, { 'port 26379': `port ${port}`, [PRIMARY]: primaryAt })}`);
        run([file, '--sentinel']);
        await answers(port);
    }
    return {
        primaryPort,
        replicaPort,
        writeConfig(dataDir) {
            const config = JSON.parse(readFileSync(join(CONTROLLER_DIR, 'conf', 'iobroker-dist.json'), 'utf8'));
            const replaced: Record<string, string> = { '[26379, 26379, 26379]': JSON.stringify(sentinelPorts) };
            for (const host of SENTINELS) {
                replaced[`"${host}"`] = '"127.0.0.1"';
            }
            const documented = JSON.parse(substitute(documentedConfig(GUIDE, 'json title=iobroker.json'), replaced));
            for (const db of ['objects', 'states']) {
                Object.assign(config[db], documented[db]);
            }
            config.dataDir = relative(CONTROLLER_DIR, dataDir) + '/';
            writeFileSync(join(dataDir, 'iobroker.json'), JSON.stringify(config, null, 2));
        },
        async killPrimary() {
            await stopProcess(primary, 'SIGKILL');
        },
        async currentPrimary() {
            const answer = await ask(sentinelPorts[0], 'SENTINEL', 'get-master-addr-by-name', 'iobroker');
            return Number(answer.split('\r\n')[4]);
        },
        async close() {
            await Promise.all(children.map(child => stopProcess(child, 'SIGKILL')));
            rmSync(dir, { recursive: true, force: true });
        },
    };
}
