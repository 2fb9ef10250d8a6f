/*
 * The one port through which the project reaches js-controller. Routes, commands, the caches and the
 * event core receive a StoragePort, never the adapter: so nothing of ours depends on how the adapter
 * (ours, or the web adapter's object in extension mode) is built, and every write passes through here.
 * The signatures are js-controller's own, picked from its adapter type.
 */

/** What js-controller offers that the project uses. */
export type StorageCalls = Pick<
    ioBroker.Adapter,
    // states
    | 'getForeignStateAsync'
    | 'getForeignStatesAsync'
    | 'setForeignStateAsync'
    | 'delForeignStateAsync'
    // objects and views
    | 'getForeignObjectAsync'
    | 'getForeignObjectsAsync'
    | 'setForeignObjectAsync'
    | 'setForeignObjectNotExistsAsync'
    | 'extendForeignObjectAsync'
    | 'delForeignObjectAsync'
    | 'getObjectViewAsync'
    | 'getObjectListAsync'
    | 'getEnumsAsync'
    // change notifications
    | 'subscribeForeignStatesAsync'
    | 'unsubscribeForeignStatesAsync'
    | 'subscribeForeignObjectsAsync'
    | 'unsubscribeForeignObjectsAsync'
    // files
    | 'readDirAsync'
    | 'readFileAsync'
    | 'writeFileAsync'
    | 'unlinkAsync'
    | 'renameAsync'
    | 'mkdirAsync'
    | 'fileExistsAsync'
    | 'chmodFileAsync'
    | 'chownFileAsync'
    // sessions, users, secrets
    | 'getSession'
    | 'setSession'
    | 'destroySession'
    | 'checkPassword'
    | 'setPasswordAsync'
    | 'encrypt'
    | 'decrypt'
    // messaging and the process
    | 'sendTo'
    | 'sendToHost'
    | 'supportsFeature'
    | 'log'
    | 'namespace'
    | 'host'
>;

/** A write that passed through the port: the caches drop what it changed. */
export interface StorageWrite {
    kind: 'state' | 'object';
    id: string;
    /** A recursive object delete: children went too. */
    recursive: boolean;
}

export interface StoragePort extends StorageCalls {
    /** Calls `listener` after every state or object write through this port, failed ones too. */
    onWrite(listener: (write: StorageWrite) => void): void;
}
