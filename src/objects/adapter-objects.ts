import type { CallerData } from '../storage/data';

type Common = Record<string, unknown> & { adminUI?: Record<string, unknown> };

/** What admin expects in `common.adminUI` when an old adapter does not declare it. */
function withAdminUi(obj: ioBroker.Object): ioBroker.Object {
    const common = obj.common as Common;
    if (!common.adminUI) {
        const config = common.noConfig
            ? 'none'
            : common.jsonConfig
              ? 'json'
              : common.materialize
                ? 'materialize'
                : 'html';
        common.adminUI = { config };
    }
    return obj;
}

/** Adapter or instance objects from the system view, without the bulky `news` (and for adapters `native`). */
export async function systemObjects(
    data: CallerData,
    view: 'adapter' | 'instance',
    name: string | undefined,
): Promise<ioBroker.Object[]> {
    const prefix = view === 'adapter' ? `system.adapter.${name ?? ''}` : `system.adapter.${name ? `${name}.` : ''}`;
    const exact = view === 'adapter' && name;
    const result = await data.objectView('system', view, {
        startkey: prefix,
        endkey: exact ? prefix : `${prefix}\u9999`,
    });
    return result.rows
        .map(row => row.value as ioBroker.Object)
        .filter(obj => obj && (!name || view === 'adapter' || (obj.common as Common).name === name))
        .map(obj => {
            const copy = structuredClone(obj) as Omit<ioBroker.Object, 'native'> & { native?: unknown };
            delete (copy.common as Common).news;
            if (view === 'adapter') {
                delete copy.native;
            }
            return withAdminUi(copy as ioBroker.Object);
        });
}
