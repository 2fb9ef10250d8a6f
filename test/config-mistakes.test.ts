/*
 * A configuration mistake is logged once, clearly, and the instance waits for a corrected configuration
 * instead of crashing in a loop (a missing certificate is covered in test/auth/tls.test.ts).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { PROJECT_ROOT, startStorage, writeInstance } from '../scripts/embedded-storage';
import { stopProcess } from '../scripts/stop-process';
import { freePort } from './support/ports';
import { copySeed, ensureSeed } from './support/seed';

t.test('a port in use: one clear error line, the process stays up, no retry storm', async t => {
    // storage only: the one adapter process is the one under test
    const dataDir = mkdtempSync(join(tmpdir(), 'rest-api-test-'));
    await ensureSeed();
    copySeed(dataDir);
    const storage = await startStorage({ dataDir, objectsPort: await freePort(), statesPort: await freePort() });
    t.teardown(async () => {
        await storage.close();
        rmSync(dataDir, { recursive: true, force: true });
    });
    const squatter = createServer();
    await new Promise<void>(resolve => squatter.listen(0, '127.0.0.1', resolve));
    t.teardown(() => squatter.close());
    const taken = (squatter.address() as { port: number }).port;
    await writeInstance(storage, { bind: '127.0.0.1', port: taken });

    const proc = spawn(process.execPath, ['--require', join(__dirname, 'support', 'exit-with-parent.js'), join(PROJECT_ROOT, 'build', 'src', 'main.js'), '--console'], {
        env: { ...process.env, IOBROKER_DATA_DIR: storage.dataDir },
        stdio: ['ignore', 'pipe', 'pipe'],
    });
    t.teardown(() => stopProcess(proc));
    let output = '';
    proc.stdout!.on('data', d => (output += d));
    proc.stderr!.on('data', d => (output += d));
    const deadline = Date.now() + 20_000;
    while (!output.includes('Cannot listen') && Date.now() < deadline && proc.exitCode === null) {
        await new Promise(r => setTimeout(r, 100));
    }
    t.match(output, new RegExp(`Cannot listen on 127\\.0\\.0\\.1:${taken}`), 'names address and port');
    await new Promise(r => setTimeout(r, 3000));
    t.equal(proc.exitCode, null, 'still running, waiting for a new configuration');
    t.equal(output.split('Cannot listen').length - 1, 1, 'said once');
});
