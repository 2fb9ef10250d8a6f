import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, startStorage } from '../../scripts/embedded-storage';
import { freePort } from './ports';

// what `setup first` writes depends on js-controller and on the adapters installed beside it (the dev
// workspace's admin brings files/admin.admin): both are in the lockfile
const { lockfileKey } = require('../../../scripts/cache-key.js') as { lockfileKey: () => string };

/** A data dir seeded by js-controller's `setup first`, once per machine, controller version and lockfile. */
export const SEED_DIR = join(tmpdir(), `rest-api-test-seed-${require('iobroker.js-controller/package.json').version}-${lockfileKey()}`);

export async function ensureSeed(): Promise<string> {
    if (existsSync(join(SEED_DIR, 'objects.jsonl'))) {
        return SEED_DIR;
    }
    const work = mkdtempSync(join(tmpdir(), 'rest-api-seeding-'));
    const storage = await startStorage({ dataDir: work, objectsPort: await freePort(), statesPort: await freePort() });
    try {
        await runCli(['setup', 'first', '--console'], work);
    } finally {
        await storage.close();
    }
    rmSync(join(work, 'iobroker.json'));
    if (!existsSync(join(SEED_DIR, 'objects.jsonl'))) {
        rmSync(SEED_DIR, { recursive: true, force: true });
        renameSync(work, SEED_DIR);
    }
    return SEED_DIR;
}

/** Copies the seeded DB files into a new data dir. */
export function copySeed(into: string): void {
    for (const name of readdirSync(SEED_DIR)) {
        cpSync(join(SEED_DIR, name), join(into, name), { recursive: true });
    }
}
