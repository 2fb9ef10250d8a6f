import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import t from 'tap';
import { fakeInstance, type FakeInstance } from '../support/fake-instance';
import { startInProcess, type InProcessHost } from '../support/in-process';
import { appFixture, type AppFixture } from '../support/in-process-fixture';

const LOG_TEXT = [
    '2026-01-01 10:00:00.000  - \u001b[32minfo\u001b[39m: test.0 <script>alert(1)</script> & "quotes"',
    '2026-01-01 10:00:01.000  - \u001b[31merror\u001b[39m: test.0 $& {{title}} stays literal',
].join('\n');

let inProcess: InProcessHost;
let iob: AppFixture;
let limited: AppFixture;
let host: FakeInstance;
const logDir = mkdtempSync(join(tmpdir(), 'rest-api-logs-'));

/** Points the file logger of the fixture's iobroker.json at a folder of the test. */
function useLogFolder(fixture: AppFixture): void {
    const file = join(fixture.storage.dataDir, 'iobroker.json');
    const config = JSON.parse(readFileSync(file, 'utf8'));
    config.log.transport.file1 = { type: 'file', enabled: true, filename: join(logDir, 'iobroker'), fileext: '.log' };
    writeFileSync(file, JSON.stringify(config, null, 2));
}

t.before(async () => {
    writeFileSync(join(logDir, 'iobroker.2026-01-01.log'), LOG_TEXT);
    writeFileSync(join(logDir, 'iobroker.2025-12-31.log.gz'), gzipSync('zipped <b>log</b>'));
    writeFileSync(join(tmpdir(), 'rest-api-outside.log'), 'outside');
    inProcess = await startInProcess();
    iob = await appFixture(inProcess);
    useLogFolder(iob);
    host = await fakeInstance(iob, 'system.host.testhost', (command, message) => {
        if (command === 'getLogFiles') {
            return { list: [{ fileName: 'log/testhost/file1/host.log', size: 30 }] };
        }
        const { filename, transport } = message as { filename: string; transport: string };
        return filename === 'host.log' && transport === 'file1' ? { data: Buffer.from('host <img src=x onerror=alert(1)>'), gz: false, size: 30 } : { error: 'Cannot find file' };
    });
    limited = await appFixture(inProcess, { defaultUser: 'limited' });
    await limited.createUser('limited', { other: { execute: false } });
});
t.teardown(async () => {
    await host?.close();
    await iob?.close();
    await limited?.close();
    await inProcess?.stop();
    rmSync(logDir, { recursive: true, force: true });
    rmSync(join(tmpdir(), 'rest-api-outside.log'), { force: true });
});

t.test('the list: local file loggers while the host does not run, else the host', async t => {
    let res = await iob.request('/log');
    t.equal(res.status, 200);
    t.same(res.json, [
        { fileName: 'log/file1/iobroker.2025-12-31.log.gz', size: readFileSync(join(logDir, 'iobroker.2025-12-31.log.gz')).length },
        { fileName: 'log/file1/iobroker.2026-01-01.log', size: Buffer.byteLength(LOG_TEXT) },
    ]);
    res = await iob.request('/log/?host=testhost');
    t.same(res.json, [{ fileName: 'log/testhost/file1/host.log', size: 30 }]);
});

t.test('a local log file as an HTML page, its text escaped', async t => {
    for (const path of ['/log/file1/iobroker.2026-01-01.log', '/log/file1%2Fiobroker.2026-01-01.log']) {
        const res = await iob.request(path);
        t.equal(res.status, 200, path);
        t.equal(res.headers['content-type'], 'text/html; charset=utf-8');
        t.notMatch(res.text, '<script>alert(1)</script>');
        t.match(res.text, '&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot;');
        t.match(res.text, '$&amp; {{title}} stays literal');
        t.match(res.text, '<title>file1/iobroker.2026-01-01.log</title>');
    }
});

t.test('a small gzip file is shown unpacked', async t => {
    const res = await iob.request('/log/file1/iobroker.2025-12-31.log.gz');
    t.equal(res.status, 200);
    t.match(res.text, 'zipped &lt;b&gt;log&lt;/b&gt;');
});

t.test('a host log file comes from the host, escaped', async t => {
    let res = await iob.request('/log/testhost/file1/host.log');
    t.equal(res.status, 200);
    t.match(res.text, 'host &lt;img src=x onerror=alert(1)&gt;');
    t.match(host.received.at(-1), { command: 'getLogFile', message: { filename: 'host.log', transport: 'file1' } });
    res = await iob.request('/log/testhost/file1/other.log');
    t.equal(res.status, 404);
    res = await iob.request('/log/stopped/file1/host.log');
    t.equal(res.status, 503);
    t.match(res.json.error, /host stopped is not running/);
});

t.test('missing files and unknown loggers answer 404 JSON', async t => {
    for (const path of ['/log/file1/nothing.log', '/log/file9/iobroker.2026-01-01.log', '/log/file1', '/log/file1%2F%2F%2Fetc%2Fpasswd']) {
        const res = await iob.request(path);
        t.equal(res.status, 404, path);
        t.match(res.json, { error: /not found/ });
    }
});

t.test('path traversal is refused', async t => {
    for (const path of ['/log/file1/..%2Frest-api-outside.log', '/log/file1%2F..%2F..%2Fetc%2Fpasswd', '/log/..%2F..%2Fetc/passwd']) {
        const res = await iob.request(path);
        t.equal(res.status, 422, path);
        t.notMatch(res.text, 'outside');
    }
});

t.test('without other.execute the log viewer answers 403', async t => {
    for (const path of ['/log', '/log/file1/iobroker.2026-01-01.log']) {
        const res = await limited.request(path);
        t.equal(res.status, 403, path);
        t.same(res.json, { error: 'permissionError' });
    }
});
