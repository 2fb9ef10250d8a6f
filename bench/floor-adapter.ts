/*
 * The least an adapter on js-controller's public API does for `PATCH /v1/state/:id`: read the body,
 * `setForeignStateAsync`, answer the written state. No routing, rights, validation or metrics. The
 * `floor` scenario (bench/floor.ts) runs it beside ours: what our request stack adds to a write.
 */
import { createServer } from 'node:http';
import { join } from 'node:path';
import * as utils from '@iobroker/adapter-core';

const adapter = new utils.Adapter({ name: 'rest-api', dirname: join(__dirname, '..', '..'), strictObjectChecks: false });

adapter.on('ready', () => {
    const { port, bind } = adapter.config as unknown as { port: number; bind: string };
    const server = createServer((req, res) => {
        const answer = (status: number, text: string): void => {
            res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
            res.end(text);
        };
        if (req.method !== 'PATCH' || !req.url?.startsWith('/v1/state/')) {
            req.resume();
            answer(200, '{"name":"floor"}');
            return;
        }
        let body = '';
        req.setEncoding('utf8');
        req.on('data', (chunk: string) => (body += chunk));
        req.on('end', () => {
            const id = decodeURIComponent(req.url!.slice('/v1/state/'.length));
            let state: ioBroker.SettableState;
            try {
                state = JSON.parse(body) as ioBroker.SettableState;
            } catch {
                answer(400, '{"error":"invalid JSON"}');
                return;
            }
            adapter.setForeignStateAsync(id, state).then(
                () => answer(200, JSON.stringify({ ...state, id })),
                (err: Error) => answer(500, JSON.stringify({ error: err.message })),
            );
        });
    });
    server.listen(port, bind);
});
