import { safePattern } from '../access/patterns';
import type { StoragePort, StorageWrite } from './port';
import { started } from './started';

type AnyAsync = (...args: unknown[]) => Promise<unknown>;

/**
 * The port on `@iobroker/adapter-core`: calls go to the adapter as they are (bound, never replaced on
 * it), writes also tell the port's listeners. The adapter object is only read, never changed.
 */
export function adapterStorage(adapter: ioBroker.Adapter): StoragePort {
    const listeners: Array<(write: StorageWrite) => void> = [];
    const told = (write: StorageWrite): void => listeners.forEach(listener => listener(write));
    // looked up on every call: whatever js-controller has set up by then answers
    const call = <K extends keyof ioBroker.Adapter>(name: K): ioBroker.Adapter[K] =>
        ((...args: unknown[]) =>
            (adapter[name] as unknown as (...a: unknown[]) => unknown).apply(
                adapter,
                args,
            )) as unknown as ioBroker.Adapter[K];
    /**
     * A write method: the adapter's, then the listeners, whatever its outcome. Handlers on its promise
     * rather than an async function: every state write passes here.
     */
    const write = <K extends keyof ioBroker.Adapter>(name: K, kind: StorageWrite['kind']): ioBroker.Adapter[K] => {
        const original = call(name) as unknown as AnyAsync;
        const wrapped: AnyAsync = (id, ...rest) => {
            const tell = (): void => {
                const options = rest.find(arg => typeof arg === 'object' && arg !== null && 'recursive' in arg) as
                    { recursive?: boolean } | undefined;
                told({ kind, id: String(id), recursive: !!options?.recursive });
            };
            return started(() => original(id, ...rest)).then(
                value => {
                    tell();
                    return value;
                },
                (err: unknown) => {
                    tell();
                    throw err;
                },
            );
        };
        return wrapped as unknown as ioBroker.Adapter[K];
    };
    /**
     * A call whose first argument is an id or a pattern: js-controller only ever gets a safe pattern
     * (src/access/patterns.ts). Ids never contain `*`, but js-controller matches one that does as a
     * pattern even in single reads and deletes, so those are checked too.
     */
    const patterned = <K extends keyof ioBroker.Adapter>(
        name: K,
        through: ioBroker.Adapter[K] = call(name),
    ): ioBroker.Adapter[K] => {
        const original = through as unknown as AnyAsync;
        return ((pattern: unknown, ...rest: unknown[]) =>
            original(
                typeof pattern === 'string' && pattern.includes('*') ? safePattern('pattern', pattern) : pattern,
                ...rest,
            )) as unknown as ioBroker.Adapter[K];
    };
    return {
        onWrite: listener => void listeners.push(listener),
        getForeignStateAsync: patterned('getForeignStateAsync'),
        getForeignStatesAsync: patterned('getForeignStatesAsync'),
        setForeignStateAsync: patterned('setForeignStateAsync', write('setForeignStateAsync', 'state')),
        delForeignStateAsync: patterned('delForeignStateAsync', write('delForeignStateAsync', 'state')),
        getForeignObjectAsync: patterned('getForeignObjectAsync'),
        getForeignObjectsAsync: patterned('getForeignObjectsAsync'),
        setForeignObjectAsync: patterned('setForeignObjectAsync', write('setForeignObjectAsync', 'object')),
        setForeignObjectNotExistsAsync: patterned(
            'setForeignObjectNotExistsAsync',
            write('setForeignObjectNotExistsAsync', 'object'),
        ),
        extendForeignObjectAsync: patterned('extendForeignObjectAsync', write('extendForeignObjectAsync', 'object')),
        delForeignObjectAsync: patterned('delForeignObjectAsync', write('delForeignObjectAsync', 'object')),
        getObjectViewAsync: call('getObjectViewAsync'),
        getObjectListAsync: call('getObjectListAsync'),
        getEnumsAsync: call('getEnumsAsync'),
        subscribeForeignStatesAsync: patterned('subscribeForeignStatesAsync'),
        unsubscribeForeignStatesAsync: patterned('unsubscribeForeignStatesAsync'),
        subscribeForeignObjectsAsync: patterned('subscribeForeignObjectsAsync'),
        unsubscribeForeignObjectsAsync: patterned('unsubscribeForeignObjectsAsync'),
        readDirAsync: call('readDirAsync'),
        readFileAsync: call('readFileAsync'),
        writeFileAsync: call('writeFileAsync'),
        unlinkAsync: call('unlinkAsync'),
        renameAsync: call('renameAsync'),
        mkdirAsync: call('mkdirAsync'),
        fileExistsAsync: call('fileExistsAsync'),
        chmodFileAsync: call('chmodFileAsync'),
        chownFileAsync: call('chownFileAsync'),
        getSession: call('getSession'),
        setSession: call('setSession'),
        destroySession: call('destroySession'),
        checkPassword: call('checkPassword'),
        setPasswordAsync: call('setPasswordAsync'),
        encrypt: call('encrypt'),
        decrypt: call('decrypt'),
        sendTo: call('sendTo'),
        sendToHost: call('sendToHost'),
        supportsFeature: call('supportsFeature'),
        // the adapter's logger and names, read when used (js-controller sets them up after construction)
        get log() {
            return adapter.log;
        },
        get namespace() {
            return adapter.namespace;
        },
        get host() {
            return adapter.host;
        },
    };
}
