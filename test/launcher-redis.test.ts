/*
 * The launcher when iobroker.json points both databases at Redis: it starts no DB server of its
 * own, seeds Redis with `setup first` and runs the adapter against it.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { PROJECT_ROOT } from '../scripts/embedded-storage';
import { freePort } from './support/ports';
import { hasRedis, startRedis, writeRedisConfig } from './support/redis';

if (!hasRedis() && !process.env.CI) {
    t.test('npm start on Redis', { skip: 'redis-server is not installed (apt-get install redis-server); CI installs it' }, async () => undefined);
} else {
    t.test('npm start on Redis', async t => {
        const redis = await startRedis();
        t.teardown(() => redis.close());
        const redisPort = redis.port;
        const dataDir = mkdtempSync(join(tmpdir(), 'rest-api-redis-'));
        t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
        writeRedisConfig(dataDir, redisPort);

        const port = await freePort();
        let output = '';
        const launcher = spawn(process.execPath, [join(PROJECT_ROOT, 'build', 'scripts', 'embedded.js')], {
            cwd: PROJECT_ROOT,
            env: { ...process.env, IOBROKER_DATA_DIR: dataDir, PORT: String(port) },
            stdio: ['ignore', 'pipe', 'pipe'],
        });
        launcher.stdout.on('data', d => (output += d));
        launcher.stderr.on('data', d => (output += d));
        const exited = new Promise(resolve => launcher.once('exit', resolve));
        t.teardown(() => launcher.kill('SIGKILL'));

        const base = `http://127.0.0.1:${port}`;
        let status = 0;
        for (let i = 0; i < 300 && status !== 200; i++) {
            status = await fetch(`${base}/v1/state/system.adapter.rest-api.0.alive`)
                .then(async r => (await r.arrayBuffer(), r.status))
                .catch(() => 0);
            await new Promise(r => setTimeout(r, 100));
        }
        t.equal(status, 200, `alive answers on Redis\n${output}`);
        const write = await fetch(`${base}/v1/state/0_userdata.0.example_state?value=true`);
        t.equal(write.status, 200);
        await write.arrayBuffer();
        const read = await (await fetch(`${base}/v1/state/0_userdata.0.example_state`)).json();
        t.match(read, { val: true });
        const keys = execFileSync('redis-cli', ['-p', String(redisPort), 'exists', 'io.0_userdata.0.example_state']).toString().trim();
        t.equal(keys, '1', 'the value is stored in Redis');
        launcher.kill('SIGINT');
        t.equal(await exited, 0);
    });
}
