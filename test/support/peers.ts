import { writeInstance, type Storage } from '../../scripts/embedded-storage';
import { createState } from './iobroker';

/**
 * Makes rest-api.N a live instance of this version on the storage, as js-controller shows one: its
 * instance object (version from io-package.json) and a true `alive` state. Instance 0 is the
 * in-process host's own and keeps its config.
 */
export async function sharingInstance(storage: Storage, instance: number): Promise<void> {
    if (instance !== 0) {
        await writeInstance(storage, { bind: '127.0.0.1' }, { instance });
    }
    await createState(storage, `system.adapter.rest-api.${instance}.alive`, { type: 'boolean' }, true);
}
