/*
 * The real ioBroker admin adapter (iobroker.admin from the registry, in the dev workspace) as an
 * instance of the test's js-controller (test/support/controller.ts), which starts it.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Storage } from '../../scripts/embedded-storage';

/**
 * system.adapter.<name> and <name>.0 from the adapter's own io-package.json (in the dev workspace),
 * enabled on this host with `native` over its defaults, as `iobroker add <name>` writes them.
 */
export async function writeRegistryInstance(storage: Storage, name: string, native: Record<string, unknown>): Promise<void> {
    const dir = dirname(require.resolve(`iobroker.${name}/package.json`));
    const io = JSON.parse(readFileSync(join(dir, 'io-package.json'), 'utf8'));
    const host = (await storage.objects.getObjectAsync('system.adapter.rest-api.0')).common.host;
    const common = {
        ...io.common,
        installedVersion: io.common.version,
        installedFrom: `iobroker.${name}@${io.common.version}`,
        host,
    };
    delete common.news;
    await storage.objects.setObjectAsync(`system.adapter.${name}`, {
        _id: `system.adapter.${name}`,
        type: 'adapter',
        common,
        native: io.native,
    });
    await storage.objects.setObjectAsync(`system.adapter.${name}.0`, {
        _id: `system.adapter.${name}.0`,
        type: 'instance',
        common: { ...common, enabled: true, mode: 'daemon' },
        native: { ...io.native, ...native },
    });
}

/** admin.0 on `port` (loopback, auth off; admin's defaults otherwise). */
export function writeAdminInstance(
    storage: Storage,
    port: number,
    native: Record<string, unknown> = {},
): Promise<void> {
    // no checks against the internet (news, repositories, public IP) from a test machine
    return writeRegistryInstance(storage, 'admin', {
        port,
        bind: '127.0.0.1',
        auth: false,
        secure: false,
        autoUpdate: 0,
        doNotCheckPublicIP: true,
        ...native,
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

/** web.0 on `port` (loopback, auth off; web's defaults otherwise). */
export function writeWebInstance(storage: Storage, port: number, native: Record<string, unknown> = {}): Promise<void> {
    return writeRegistryInstance(storage, 'web', { port, bind: '127.0.0.1', auth: false, secure: false, ...native });
}
