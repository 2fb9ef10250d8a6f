/*
 * Would a compiled serializer (fast-json-stringify, built from the declared response schema) answer
 * the hot reads faster than JSON.stringify, with the same bytes? Measured on answers the running
 * adapter really gives: a state, a state with withInfo, the getState envelope and a state listing.
 * Only if every variant were byte-identical and faster would it be worth wiring into `send`.
 */
import { performance } from 'node:perf_hooks';
import fastJson from 'fast-json-stringify';
import { commandAnswerSchema } from '../src/routing/openapi';
import { dictionary, ListedState, StateEntrySchema } from '../src/http/schemas';
import getState from '../commands/getState';
import type { BenchRuntime } from './fixture';
import { VALUE_ID } from './http';

export interface SerializerRow {
    answer: string;
    bytes: number;
    serializer: string;
    /** Every real answer gives exactly JSON.stringify's bytes. */
    byteIdentical: boolean;
    nsPerOp: number;
    /** JSON.stringify's time divided by this one: above 1 is faster. */
    speedup: number;
}

/** The schema as plain JSON Schema (TypeBox adds symbols fast-json-stringify need not see). */
const plain = (schema: unknown): Record<string, unknown> => JSON.parse(JSON.stringify(schema));

function nsPerOp(fn: (value: unknown) => string, value: unknown, minMs = 400): number {
    for (let i = 0; i < 2000; i++) {
        fn(value);
    }
    let runs = 0;
    const started = performance.now();
    while (performance.now() - started < minMs) {
        for (let i = 0; i < 500; i++) {
            fn(value);
        }
        runs += 500;
    }
    return ((performance.now() - started) * 1e6) / runs;
}

export async function measureSerializers(rt: BenchRuntime, listingPrefix: string): Promise<SerializerRow[]> {
    const answers = [
        { answer: 'GET /v1/state/:id', path: `/v1/state/${VALUE_ID}`, schema: StateEntrySchema },
        { answer: 'GET /v1/state/:id?withInfo', path: `/v1/state/${VALUE_ID}?withInfo=true`, schema: StateEntrySchema },
        { answer: 'GET /v1/command/getState', path: `/v1/command/getState?id=${VALUE_ID}`, schema: commandAnswerSchema(getState) },
        { answer: 'GET /v1/states (1,000)', path: `/v1/states?filter=${listingPrefix}.*`, schema: dictionary(ListedState, 'states') },
    ];
    const rows: SerializerRow[] = [];
    for (const { answer, path, schema } of answers) {
        const text = await (await fetch(rt.baseUrl + path)).text();
        const value = JSON.parse(text) as unknown;
        const reference = nsPerOp(JSON.stringify, value);
        rows.push({ answer, bytes: text.length, serializer: 'JSON.stringify', byteIdentical: JSON.stringify(value) === text, nsPerOp: Math.round(reference), speedup: 1 });
        const compiled = fastJson(plain(schema)) as (value: unknown) => string;
        const ns = nsPerOp(compiled, value);
        rows.push({ answer, bytes: text.length, serializer: 'fast-json-stringify', byteIdentical: compiled(value) === text, nsPerOp: Math.round(ns), speedup: Math.round((reference / ns) * 100) / 100 });
    }
    return rows;
}
