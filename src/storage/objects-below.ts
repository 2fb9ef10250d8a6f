import type { StoragePort } from './port';

/**
 * The objects of one type whose ids start with `prefix`, listed by id range. js-controller's typed
 * views for groups, users and configs key their rows by `common.name`, and on Redis a range query on
 * them finds none by id: js-controller's own rights check lists groups and users this way too.
 */
export async function objectsBelow(
    port: Pick<StoragePort, 'getObjectListAsync'>,
    prefix: string,
    type: ioBroker.ObjectType,
    options?: Record<string, unknown>,
): Promise<ioBroker.Object[]> {
    const list = await port.getObjectListAsync({ startkey: prefix, endkey: `${prefix}\u9999` }, options as never);
    return (list?.rows ?? []).map(row => row.value).filter((obj): obj is ioBroker.Object => obj?.type === type);
}
