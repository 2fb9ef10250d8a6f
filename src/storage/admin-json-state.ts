import type { StoragePort } from './port';

/**
 * A JSON state of this instance that only administrators may read (user names, addresses, session
 * ids), written in order: its object is made once, before the first write, and again after a failed try.
 * What instances tell each other (failed logins, polling sessions, URL hooks) goes through these.
 */
export function adminJsonState(
    storage: Pick<StoragePort, 'setForeignObjectNotExistsAsync' | 'setForeignStateAsync'>,
    id: string,
    name: string,
): (value: unknown) => Promise<void> {
    let created: Promise<unknown> | null = null;
    let queue: Promise<unknown> = Promise.resolve();
    return value => {
        created ??= storage
            .setForeignObjectNotExistsAsync(id, {
                type: 'state',
                common: { name, type: 'string', role: 'json', read: true, write: false },
                native: {},
                acl: {
                    owner: 'system.user.admin',
                    ownerGroup: 'system.group.administrator',
                    object: 0x600,
                    state: 0x600,
                },
            })
            .catch(err => {
                created = null;
                throw err;
            });
        const sent = queue
            .then(() => created)
            .then(() => storage.setForeignStateAsync(id, JSON.stringify(value), true));
        queue = sent.catch(() => undefined);
        return sent.then(() => undefined);
    };
}
