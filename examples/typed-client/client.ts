/*
 * A typed TypeScript client: the types come from the server's own OpenAPI document,
 *   npx openapi-typescript http://127.0.0.1:8093/api-docs/openapi.json -o api.d.ts
 * and openapi-fetch makes the requests. No casts and no `any`: TypeScript knows what each answer
 * holds, errors included. Run: node client.js [baseUrl] [stateId]
 */
import createClient from 'openapi-fetch';
import type { paths } from './api';

const baseUrl = process.argv[2] ?? 'http://127.0.0.1:8093';
const stateId = process.argv[3] ?? '0_userdata.0.example_state';
const client = createClient<paths>({ baseUrl });

async function main(): Promise<void> {
    // write by PATCH: the answer is what was written, with its id
    const written = await client.PATCH('/v1/state/{stateId}', { params: { path: { stateId } }, body: { val: 42, ack: true } });

    // read it back: one id gives one state, a comma-separated list gives an array
    const read = await client.GET('/v1/state/{stateId}', { params: { path: { stateId } } });
    const state = Array.isArray(read.data) ? read.data[0] : read.data;

    // read again only if it changed: with the ETag of the last read the answer is 304, without a body
    const etag = read.response.headers.get('ETag') ?? '';
    const again = await client.GET('/v1/state/{stateId}', { params: { path: { stateId }, header: { 'If-None-Match': etag } } });

    // the same through the generic command path, in its {error, result} envelope
    const command = await client.GET('/v1/command/getState', { params: { query: { id: stateId } } });

    // the object, a page of a listing, and a typed error body
    const object = await client.GET('/v1/object/{objectId}', { params: { path: { objectId: stateId } } });
    const listing = await client.GET('/v1/states', { params: { query: { filter: `${stateId.split('.').slice(0, 2).join('.')}.*`, limit: 100 } } });
    const missing = await client.GET('/v1/object/{objectId}', { params: { path: { objectId: 'no.such.object' } } });

    const summary = {
        written: written.data?.val,
        val: state?.val,
        ack: state?.ack,
        unchanged: again.response.status,
        commandVal: command.data?.result?.val,
        objectType: object.data?.type,
        objectName: object.data?.common?.name,
        listed: listing.data ? Object.keys(listing.data).length : 0,
        missingStatus: missing.response.status,
        missingError: missing.error?.error,
    };
    console.log(JSON.stringify(summary));
}

main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
});
