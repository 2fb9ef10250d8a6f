/*
 * The real ioBroker admin adapter (iobroker.admin from the registry, in the dev workspace) as an
 * instance of the test's js-controller (test/support/controller.ts), which starts it.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Storage } from '../../scripts/embedded-storage';

const ADMIN_DIR = dirname(require.resolve('iobroker.admin/package.json'));

/** system.adapter.admin and admin.0 on `port` (loopback, auth off; admin's defaults otherwise), as `iobroker add admin` writes them. */
export async function writeAdminInstance(
    storage: Storage,
    port: number,
    native: Record<string, unknown> = {},
): Promise<void> {
    const io = JSON.parse(readFileSync(join(ADMIN_DIR, 'io-package.json'), 'utf8'));
    const host = (await storage.objects.getObjectAsync('system.adapter.rest-api.0')).common.host;
    const common = {
        ...io.common,
        installedVersion: io.common.version,
        installedFrom: `iobroker.admin@${io.common.version}`,
        host,
    };
    delete common.news;
    await storage.objects.setObjectAsync('system.adapter.admin', {
        _id: 'system.adapter.admin',
        type: 'adapter',
        common,
        native: io.native,
    });
    await storage.objects.setObjectAsync('system.adapter.admin.0', {
        _id: 'system.adapter.admin.0',
        type: 'instance',
        common: { ...common, enabled: true, mode: 'daemon' },
        // no checks against the internet (news, repositories, public IP) from a test machine
        native: {
            ...io.native,
            port,
            bind: '127.0.0.1',
            auth: false,
            secure: false,
            autoUpdate: 0,
            doNotCheckPublicIP: true,
            ...native,
        },
    });
}

/** Resolves once `url` answers 200; `alive` says why not when the process behind it ended. */
export async function until200(url: string, alive: () => string | undefined, timeoutMs = 90_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
        // a server that restarts may cut an answer off midway: that counts as not answering yet
        const status = await fetch(url)
            .then(async res => (await res.arrayBuffer(), res.status))
            .catch(() => 0);
        if (status === 200) {
            return;
        }
        const ended = alive();
        if (ended !== undefined || Date.now() > deadline) {
            throw new Error(`${url} did not answer 200 (${status}): ${ended ?? 'timed out'}`);
        }
        await new Promise(r => setTimeout(r, 250));
    }
}

/** system.adapter.web and web.0 on `port` (loopback, auth off; web's defaults otherwise). */
export async function writeWebInstance(
    storage: Storage,
    port: number,
    native: Record<string, unknown> = {},
): Promise<void> {
    const webDir = dirname(require.resolve('iobroker.web/package.json'));
    const io = JSON.parse(readFileSync(join(webDir, 'io-package.json'), 'utf8'));
    const host = (await storage.objects.getObjectAsync('system.adapter.rest-api.0')).common.host;
    const common = {
        ...io.common,
        installedVersion: io.common.version,
        installedFrom: `iobroker.web@${io.common.version}`,
        host,
    };
    delete common.news;
    await storage.objects.setObjectAsync('system.adapter.web', {
        _id: 'system.adapter.web',
        type: 'adapter',
        common,
        native: io.native,
    });
    await storage.objects.setObjectAsync('system.adapter.web.0', {
        _id: 'system.adapter.web.0',
        type: 'instance',
        common: { ...common, enabled: true, mode: 'daemon' },
        native: { ...io.native, port, bind: '127.0.0.1', auth: false, secure: false, ...native },
    });
}
