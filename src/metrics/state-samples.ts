import { HttpError } from '../http/http-error';
import { assertSafePattern } from '../access/patterns';
import type { CallerData } from '../storage/data';
import type { StateSample } from './metrics';

/** Series of `iobroker_state` per scrape at most: a pattern like `*` must not flood Prometheus. */
export const MAX_STATE_SERIES = 1000;

function text(name: unknown): string {
    if (typeof name === 'string') {
        return name;
    }
    if (name && typeof name === 'object') {
        const translated = name as Record<string, unknown>;
        return String(translated.en ?? Object.values(translated)[0] ?? '');
    }
    return '';
}

/** The states of one pattern the caller may list; none when it may not, or the pattern is one js-controller cannot take. */
async function matching(data: CallerData, asAdapter: boolean, pattern: string): Promise<Record<string, unknown>> {
    try {
        assertSafePattern('metricsStates', pattern);
        return asAdapter ? await data.adapterStateListing(pattern) : await data.stateListing(pattern);
    } catch (err) {
        if (err instanceof HttpError && err.status < 500) {
            return {};
        }
        throw err;
    }
}

/**
 * The numeric and boolean states matching `patterns` that the caller may read (a public scrape, with
 * no caller, reads as the adapter: the administrator chose both the patterns and to publish them).
 * Values come from the read caches where they hold them; names and units from the state objects.
 */
export async function stateSamples(
    data: CallerData,
    asAdapter: boolean,
    patterns: string[],
): Promise<{ samples: StateSample[]; omitted: number }> {
    const samples: StateSample[] = [];
    const seen = new Set<string>();
    let omitted = 0;
    for (const pattern of patterns) {
        const states = await matching(data, asAdapter, pattern);
        for (const id of Object.keys(states).sort()) {
            const val = (states[id] as ioBroker.State | null)?.val;
            if (
                seen.has(id) ||
                (typeof val !== 'number' && typeof val !== 'boolean') ||
                !Number.isFinite(Number(val))
            ) {
                continue;
            }
            seen.add(id);
            if (samples.length >= MAX_STATE_SERIES) {
                omitted++;
                continue;
            }
            const common = (await data.cachedAdapterObject(id))?.common as Partial<ioBroker.StateCommon> | undefined;
            samples.push({ id, name: text(common?.name), unit: common?.unit ?? '', value: Number(val) });
        }
    }
    return { samples, omitted };
}
