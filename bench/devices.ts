/*
 * `--only devices`: listing 1,000 devices (GET /v1/devices) and writing one (PATCH /v1/devices/:id)
 * beside the plain state routes over 10,000 states (GET /v1/states?filter=), in one runtime; and what
 * the first listing after an object change costs (the detection done again). Medians of sequential
 * requests. Target: the device listing within 2× the 10,000-state listing.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { startRuntime, type OursOptions } from './fixture';

const DEVICES = 'benchdev.0.devices';
const STATES = 'benchdev.0.states';

export interface DeviceFigures {
    devices: number;
    states: number;
    /** GET /v1/devices, the detection kept. */
    deviceListingMs: number;
    /** GET /v1/states?filter= over the plain states. */
    stateListingMs: number;
    ratio: number;
    /** The first GET /v1/devices after one state object of one device changed. */
    afterChangeMs: number;
    patchMs: number;
    /** PATCH /v1/state/:id of the same state, for comparison. */
    statePatchMs: number;
    listed: number;
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function seed(storage: Awaited<ReturnType<typeof startRuntime>>['storage'], devices: number, states: number): Promise<void> {
    const { objects } = storage;
    const from = 'system.adapter.bench.0';
    for (let i = 0; i < devices; i++) {
        const channel = `${DEVICES}.d${i}`;
        await objects.setObjectAsync(channel, { _id: channel, type: 'channel', common: { name: `Dimmer ${i}` }, native: {} } as ioBroker.Object);
        await objects.setObjectAsync(`${channel}.LEVEL`, {
            _id: `${channel}.LEVEL`,
            type: 'state',
            common: { name: 'LEVEL', role: 'level.dimmer', type: 'number', read: true, write: true, min: 0, max: 100, unit: '%' },
            native: {},
        } as ioBroker.Object);
        await objects.setObjectAsync(`${channel}.WORKING`, {
            _id: `${channel}.WORKING`,
            type: 'state',
            common: { name: 'WORKING', role: 'indicator.working', type: 'boolean', read: true, write: false },
            native: {},
        } as ioBroker.Object);
        await storage.states.setStateAsync(`${channel}.LEVEL`, { val: i % 100, ack: true, from });
        await storage.states.setStateAsync(`${channel}.WORKING`, { val: false, ack: true, from });
    }
    for (let i = 0; i < states; i++) {
        const id = `${STATES}.s${i}`;
        await objects.setObjectAsync(id, { _id: id, type: 'state', common: { name: id, type: 'number', role: 'value', read: true, write: true }, native: {} } as ioBroker.Object);
        await storage.states.setStateAsync(id, { val: i, ack: true, from });
    }
}

export async function measureDevices(ours: OursOptions, devices = 1_000, states = 10_000, repeats = 7): Promise<DeviceFigures> {
    const rt = await startRuntime(ours, { checkInterval: 0 });
    try {
        await seed(rt.storage, devices, states);
        const timed = async (path: string, init?: RequestInit): Promise<{ ms: number; body: unknown }> => {
            const started = performance.now();
            const res = await fetch(`${rt.baseUrl}${path}`, init);
            const body = await res.json();
            if (!res.ok) {
                throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
            }
            return { ms: performance.now() - started, body };
        };
        const medianOf = async (path: string, init?: () => RequestInit): Promise<number> => {
            await timed(path, init?.());
            const times: number[] = [];
            for (let i = 0; i < repeats; i++) {
                times.push((await timed(path, init?.())).ms);
            }
            return Math.round(median(times) * 10) / 10;
        };
        const deviceListingMs = await medianOf('/v1/devices');
        const listed = Object.keys((await timed('/v1/devices')).body as object).length;
        const stateListingMs = await medianOf(`/v1/states?filter=${STATES}.*`);
        const after: number[] = [];
        for (let i = 0; i < repeats; i++) {
            const id = `${DEVICES}.d${i}.WORKING`;
            const obj = (await rt.storage.objects.getObjectAsync(id)) as ioBroker.Object;
            await rt.storage.objects.setObjectAsync(id, { ...obj, common: { ...obj.common, name: `WORKING ${i}` } } as ioBroker.Object);
            // the notification reaches the adapter before the next request
            await delay(200);
            after.push((await timed('/v1/devices')).ms);
        }
        let n = 0;
        const patch = (body: object) => (): RequestInit => ({ method: 'PATCH', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
        const patchMs = await medianOf(`/v1/devices/${DEVICES}.d1`, () => patch({ SET: n++ % 100 })());
        const statePatchMs = await medianOf(`/v1/state/${DEVICES}.d1.LEVEL`, () => patch({ val: n++ % 100 })());
        return {
            devices,
            states,
            deviceListingMs,
            stateListingMs,
            ratio: Math.round((deviceListingMs / stateListingMs) * 100) / 100,
            afterChangeMs: Math.round(median(after)),
            patchMs,
            statePatchMs,
            listed,
        };
    } finally {
        await rt.stop();
    }
}
