import { connect } from 'node:tls';
import t from 'tap';
import { startIobroker, type IobFixture } from '../support/iobroker';
import { basic } from '../support/raw-request';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const forge = require('node-forge');

function selfSigned(commonName: string): { cert: string; key: string } {
    const keys = forge.pki.rsa.generateKeyPair(2048);
    const cert = forge.pki.createCertificate();
    cert.publicKey = keys.publicKey;
    cert.serialNumber = String(Date.now());
    cert.validity.notBefore = new Date(Date.now() - 60_000);
    cert.validity.notAfter = new Date(Date.now() + 24 * 3600_000);
    const attrs = [{ name: 'commonName', value: commonName }];
    cert.setSubject(attrs);
    cert.setIssuer(attrs);
    cert.sign(keys.privateKey, forge.md.sha256.create());
    return { cert: forge.pki.certificateToPem(cert), key: forge.pki.privateKeyToPem(keys.privateKey) };
}

function peerCommonName(port: number): Promise<string> {
    return new Promise((resolve, reject) => {
        const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
            resolve(String(socket.getPeerCertificate().subject?.CN));
            socket.end();
        });
        socket.on('error', reject);
    });
}

let iob: IobFixture;
t.before(async () => {
    iob = await startIobroker({ native: { secure: true, auth: true } });
});
t.teardown(() => iob?.stop());

t.test('HTTPS with the default certificates, the same auth answers and body limit as HTTP', async t => {
    t.equal(new URL(iob.baseUrl).protocol, 'https:');
    t.equal((await iob.request('/v1/command/getVersion', { headers: basic('admin', 'iobroker') })).status, 200);
    t.same((await iob.request('/v1/command/getVersion')).json, { error: 'User is required' });
    await iob.restart({ bodyLimit: 2048 });
    const big = await iob.request('/v1/state/0_userdata.0.example_state', { method: 'PATCH', body: { val: 'x'.repeat(5000) }, headers: basic('admin', 'iobroker') });
    t.equal(big.status, 413);
    await iob.restart({ bodyLimit: 104857600 });
});

t.test('renewed certificates are served without a restart', async t => {
    // the adapter watches the certificates once it has started completely (its "listening" line)
    const started = (): boolean => iob.logs().lastIndexOf('REST API listening') > iob.logs().lastIndexOf(') starting.');
    for (let i = 0; i < 200 && !started(); i++) {
        await new Promise(r => setTimeout(r, 50));
    }
    t.ok(started(), 'started completely');
    const before = await peerCommonName(iob.port);
    const fresh = selfSigned('renewed.rest-api.test');
    const store = await iob.storage.objects.getObjectAsync('system.certificates');
    store.native.certificates.defaultPublic = fresh.cert;
    store.native.certificates.defaultPrivate = fresh.key;
    await iob.storage.objects.setObjectAsync('system.certificates', store);
    let after = before;
    for (let i = 0; i < 50 && after === before; i++) {
        await new Promise(r => setTimeout(r, 100));
        after = await peerCommonName(iob.port);
    }
    t.not(before, 'renewed.rest-api.test');
    t.equal(after, 'renewed.rest-api.test');
    t.equal((await iob.request('/v1/command/getVersion', { headers: basic('admin', 'iobroker') })).status, 200);
});

t.test('a missing certificate is a clear log line, not a crash loop', async t => {
    await iob.restart({ certPublic: 'noSuchCertificate', certPrivate: 'noSuchKey' }).catch(() => undefined);
    let logged = false;
    for (let i = 0; i < 40 && !logged; i++) {
        logged = /no certificate could be loaded|no certificates found/i.test(iob.logs());
        await new Promise(r => setTimeout(r, 100));
    }
    t.ok(logged, 'the log names the certificate problem');
    t.notMatch(iob.logs(), /UNCAUGHT_EXCEPTION/);
});
