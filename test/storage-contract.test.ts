/*
 * The one place the project relies on what js-controller does not publish (src/storage/link-state.ts:
 * whether its notification connections are up). Pinned to the installed js-controller: an upgrade that
 * changes the version or the behaviour fails here first, not in a user's adapter. In-process, against
 * js-controller's real DB servers and its real states client class.
 */
import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { startStorage } from '../scripts/embedded-storage';
import { StorageLink } from '../src/storage/link-state';
import { freePort } from './support/ports';
import { copySeed, ensureSeed } from './support/seed';

/** The js-controller the private access was written and checked against. */
const PINNED = '7.2.3';

t.test('the installed js-controller is the one the storage link was checked against', async t => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    t.equal(require('@iobroker/js-controller-adapter/package.json').version, PINNED, 'js-controller-adapter');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    t.equal(require('iobroker.js-controller/package.json').version, PINNED, 'js-controller');
});

t.test("js-controller's states client, watched as the adapter loads it, reports its link down and up again", async t => {
    await ensureSeed();
    const dataDir = mkdtempSync(join(tmpdir(), 'rest-api-contract-'));
    copySeed(dataDir);
    const storage = await startStorage({ dataDir, objectsPort: await freePort(), statesPort: await freePort() });
    let client: any = null;
    t.teardown(async () => {
        // the client first: commands still queued on it must not meet a closed server
        await client?.destroy().catch(() => undefined);
        await new Promise(r => setTimeout(r, 100));
        await storage.close();
        rmSync(dataDir, { recursive: true, force: true });
    });
    // a stand-in that receives the client class the way js-controller's adapter does (`this.States = ...`)
    const holder: Record<string, unknown> = {};
    const link = new StorageLink(holder as unknown as ioBroker.Adapter);
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    holder.States = require('@iobroker/db-states-redis').Client;
    const Client = holder.States as new (settings: unknown) => any;
    t.not(Client, require('@iobroker/db-states-redis').Client, 'the link watches the class it was handed'); // eslint-disable-line @typescript-eslint/no-require-imports

    const changes: boolean[] = [];
    link.on('change', (up: boolean) => changes.push(up));
    const logger = { silly: () => undefined, debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
    client = await new Promise<any>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('client did not connect')), 10_000);
        const instance = new Client({
            connection: storage.config.states,
            logger,
            hostname: 'contract',
            // what js-controller's adapter hands its client: system and user notifications
            change: () => undefined,
            changeUser: () => undefined,
            connected: () => {
                clearTimeout(timer);
                setImmediate(() => resolve(instance));
            },
        });
    });
    await client.subscribeUser('0_userdata.0.*');
    t.ok(client.sub instanceof EventEmitter, 'the client keeps its subscriber connection in `sub`');
    t.ok(Object.keys(client.userSubscriptions ?? {}).length > 0, 'and its patterns in `userSubscriptions`');
    t.ok(link.up, 'up while connected');

    await storage.bounce(1000);
    const end = Date.now() + 15_000;
    while (!(changes.includes(false) && link.up) && Date.now() < end) {
        await new Promise(r => setTimeout(r, 50));
    }
    t.same(changes, [false, true], 'down when the DB went away, up once every subscription was confirmed again');
});
