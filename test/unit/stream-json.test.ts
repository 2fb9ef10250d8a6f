/*
 * Large listings written while serialised (src/http/stream-json.ts), over a real loopback socket: the
 * bytes equal JSON.stringify's, a reader that does not read holds the writer back instead of
 * making it buffer, and a reader that goes away ends the writing without an error.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { dictionaryText, writeDictionary, type DictionaryBody } from '../../src/http/stream-json';

function serve(body: DictionaryBody, seen: { maxBuffered: number; done?: Promise<void> }): Promise<Server> {
    const server = createServer((_req, res) => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        const write = res.write.bind(res);
        // watch what the response holds unsent while the dictionary is written
        res.write = ((chunk: string) => {
            const ok = write(chunk);
            seen.maxBuffered = Math.max(seen.maxBuffered, res.writableLength);
            return ok;
        }) as typeof res.write;
        seen.done = writeDictionary(res, body);
    });
    return new Promise(resolve => server.listen(0, '127.0.0.1', () => resolve(server)));
}

function get(server: Server, onResponse?: (res: import('node:http').IncomingMessage) => void): Promise<string> {
    return new Promise((resolve, reject) => {
        const req = request({ port: (server.address() as AddressInfo).port, host: '127.0.0.1', path: '/' }, res => {
            onResponse?.(res);
            let text = '';
            res.setEncoding('utf8');
            res.on('data', chunk => (text += chunk));
            res.on('end', () => resolve(text));
            res.on('error', reject);
        });
        req.on('error', reject);
        req.end();
    });
}

t.test('the streamed bytes are exactly JSON.stringify of the enveloped dictionary', async t => {
    const entries: Record<string, unknown> = {};
    for (let i = 0; i < 20_000; i++) {
        entries[`a.${i}`] = { val: i % 3 ? i : `text "${i}" \u00e9 \n`, ack: !!(i % 2), from: 'system.adapter.x.0' };
    }
    entries['quote"and\\back'] = null;
    entries['left.out'] = undefined;
    entries['emoji.\u{1F600}'] = [1, { deep: true }];
    const body = { entries, before: '{"error":null,"result":', after: '}' };
    const seen = { maxBuffered: 0 } as { maxBuffered: number; done?: Promise<void> };
    const server = await serve(body, seen);
    t.teardown(() => server.close());
    const text = await get(server);
    t.equal(text, JSON.stringify({ error: null, result: entries }));
    t.equal(text, dictionaryText(body));
    t.ok(text.length > 1_000_000, `${text.length} characters`);
    await seen.done;
});

t.test('a reader that does not read holds the writer back; one that leaves ends it quietly', async t => {
    const entries: Record<string, unknown> = {};
    for (let i = 0; i < 100_000; i++) {
        entries[`b.${i}`] = { val: 'x'.repeat(100), ack: true };
    }
    const seen = { maxBuffered: 0 } as { maxBuffered: number; done?: Promise<void> };
    const server = await serve({ entries, before: '', after: '' }, seen);
    t.teardown(() => server.close());
    await new Promise<void>(resolve => {
        get(server, res => {
            res.pause();
            // the socket buffers fill, then the writer must wait; after a while the reader gives up
            setTimeout(() => {
                res.destroy();
                resolve();
            }, 300);
        }).catch(() => undefined);
    });
    await t.resolves(seen.done!, 'the writer ends without an error');
    t.ok(seen.maxBuffered < 1_000_000, `at most ${seen.maxBuffered} bytes held unsent for a ${JSON.stringify(entries).length}-byte answer`);
});
